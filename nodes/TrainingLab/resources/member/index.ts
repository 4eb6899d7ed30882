import type { INodeProperties } from 'n8n-workflow';
import * as add from './add';
import * as getAll from './getAll';
import * as remove from './remove';
import * as updateRole from './updateRole';

export const memberOperations = {
	add: add.execute,
	getAll: getAll.execute,
	remove: remove.execute,
	updateRole: updateRole.execute,
};

export const memberDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['member'] } },
		options: [
			{
				name: 'Add',
				value: 'add',
				action: 'Add a member',
				description: 'Add a member to the organization',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many members',
				description: 'List the members of the organization',
			},
			{
				name: 'Remove',
				value: 'remove',
				action: 'Remove a member',
				description: 'Remove a member and revoke their API keys',
			},
			{
				name: 'Update Role',
				value: 'updateRole',
				action: 'Update the role of a member',
				description: "Change a member's role",
			},
		],
		default: 'getAll',
	},
	...add.description,
	...getAll.description,
	...remove.description,
	...updateRole.description,
];
