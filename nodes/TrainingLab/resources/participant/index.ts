import type { INodeProperties } from 'n8n-workflow';
import * as join from './join';

export const participantOperations = { join: join.execute };

export const participantDescription: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['participant'] } },
		options: [
			{
				name: 'Join',
				value: 'join',
				action: 'Join a session with its join code',
				description: 'Add a participant to the session the join code belongs to',
			},
		],
		default: 'join',
	},
	...join.description,
];
