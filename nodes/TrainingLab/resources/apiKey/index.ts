import type { INodeProperties } from 'n8n-workflow';
import * as create from './create';
import * as getAll from './getAll';
import * as revoke from './revoke';

export const apiKeyOperations = {
	create: create.execute,
	getAll: getAll.execute,
	revoke: revoke.execute,
};

export const apiKeyDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['apiKey'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Create an API key',
				description: 'Create an API key owned by you',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many API keys',
				description: 'List the API keys of the organization',
			},
			{
				name: 'Revoke',
				value: 'revoke',
				action: 'Revoke an API key',
				description: 'Revoke an API key',
			},
		],
		default: 'getAll',
	},
	...create.description,
	...getAll.description,
	...revoke.description,
];
