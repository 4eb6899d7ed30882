import type { INodeProperties } from 'n8n-workflow';
import * as get from './get';

export const identityOperations = { get: get.execute };

export const identityDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['identity'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				action: 'Get the identity of the API key',
				description: 'Get the user, organization and role of the API key',
			},
		],
		default: 'get',
	},
];
