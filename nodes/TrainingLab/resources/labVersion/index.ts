import type { INodeProperties } from 'n8n-workflow';
import * as create from './create';
import * as getAll from './getAll';
import * as publish from './publish';

export const labVersionOperations = {
	create: create.execute,
	getAll: getAll.execute,
	publish: publish.execute,
};

export const labVersionDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['labVersion'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Create a lab version',
				description: 'Create a draft version of a lab',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many lab versions',
				description: 'List the versions of a lab',
			},
			{
				name: 'Publish',
				value: 'publish',
				action: 'Publish a lab version',
				description: 'Publish a draft version so sessions can use it',
			},
		],
		default: 'getAll',
	},
	...create.description,
	...getAll.description,
	...publish.description,
];
