import type { INodeProperties } from 'n8n-workflow';
import * as create from './create';
import * as deleteSession from './delete';
import * as end from './end';
import * as get from './get';
import * as getAll from './getAll';
import * as rotateJoinCode from './rotateJoinCode';
import * as start from './start';

export const sessionOperations = {
	create: create.execute,
	delete: deleteSession.execute,
	end: end.execute,
	get: get.execute,
	getAll: getAll.execute,
	rotateJoinCode: rotateJoinCode.execute,
	start: start.execute,
};

export const sessionDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['session'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Create a session',
				description: 'Create a scheduled training session',
			},
			{
				name: 'Delete',
				value: 'delete',
				action: 'Delete a session',
				description: 'Delete a session that is not running',
			},
			{ name: 'End', value: 'end', action: 'End a session', description: 'End a running session' },
			{
				name: 'Get',
				value: 'get',
				action: 'Get a session',
				description: 'Get a session with its participant count',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many sessions',
				description: 'List sessions',
			},
			{
				name: 'Rotate Join Code',
				value: 'rotateJoinCode',
				action: 'Rotate the join code of a session',
				description: 'Replace the join code of a session',
			},
			{
				name: 'Start',
				value: 'start',
				action: 'Start a session',
				description: 'Start a scheduled session',
			},
		],
		default: 'create',
	},
	...create.description,
	...deleteSession.description,
	...end.description,
	...get.description,
	...getAll.description,
	...rotateJoinCode.description,
	...start.description,
];
