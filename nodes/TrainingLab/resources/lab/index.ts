import type { INodeProperties } from 'n8n-workflow';
import * as create from './create';
import * as getAll from './getAll';

export const labOperations = { create: create.execute, getAll: getAll.execute };

export const labDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['lab'] } },
		options: [
			{ name: 'Create', value: 'create', action: 'Create a lab', description: 'Create a lab' },
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many labs',
				description: 'List the labs of the organization',
			},
		],
		default: 'getAll',
	},
	...create.description,
	...getAll.description,
];
