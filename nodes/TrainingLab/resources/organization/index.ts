import type { INodeProperties } from 'n8n-workflow';
import * as close from './close';

export const organizationOperations = { close: close.execute };

export const organizationDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['organization'] } },
		options: [
			{
				name: 'Close',
				value: 'close',
				action: 'Close the organization',
				description: 'Close the organization of the API key for good',
			},
		],
		default: 'close',
	},
	...close.description,
];
