import type { INodeProperties } from 'n8n-workflow';
import * as create from './create';
import * as deleteWebhook from './delete';
import * as get from './get';
import * as getAll from './getAll';
import * as getDeliveries from './getDeliveries';

export const webhookOperations = {
	create: create.execute,
	delete: deleteWebhook.execute,
	get: get.execute,
	getAll: getAll.execute,
	getDeliveries: getDeliveries.execute,
};

export const webhookDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['webhook'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Create a webhook endpoint',
				description: 'Register a URL to receive signed events',
			},
			{
				name: 'Delete',
				value: 'delete',
				action: 'Delete a webhook endpoint',
				description: 'Delete a webhook endpoint',
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get a webhook endpoint',
				description: 'Get one endpoint by ID, without its secret',
			},
			{
				name: 'Get Deliveries',
				value: 'getDeliveries',
				action: 'Get deliveries of a webhook endpoint',
				description: 'List deliveries to an endpoint, newest first',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many webhook endpoints',
				description: 'List the webhook endpoints',
			},
		],
		default: 'getAll',
	},
	...create.description,
	...deleteWebhook.description,
	...get.description,
	...getAll.description,
	...getDeliveries.description,
];
