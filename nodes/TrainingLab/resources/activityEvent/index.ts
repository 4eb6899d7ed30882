import type { INodeProperties } from 'n8n-workflow';
import * as getAll from './getAll';

export const activityEventOperations = { getAll: getAll.execute };

export const activityEventDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['activityEvent'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many activity events',
				description: "List the organization's activity log, newest first",
			},
		],
		default: 'getAll',
	},
	...getAll.description,
];
