import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { personFields } from '../../shared/descriptions';
import { apiRequest, idempotencyKeyFor } from '../../../shared/transport';
import type { OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Join',
	value: 'join',
	action: 'Join a session with its join code',
	description: 'Add a participant to the session the join code belongs to',
};

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['participant'], operation: ['join'] } },
	[
		{
			displayName: 'Join Code',
			name: 'joinCode',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. K7QX2MPA',
			description: 'The 8-character join code of the session',
		},
		...personFields,
	],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const body = {
		join_code: this.getNodeParameter('joinCode', itemIndex) as string,
		email: this.getNodeParameter('email', itemIndex) as string,
		name: this.getNodeParameter('name', itemIndex) as string,
	};
	const idempotencyKey = idempotencyKeyFor(this, itemIndex, body);
	return (await apiRequest.call(this, 'POST', '/join', { body, idempotencyKey, itemIndex })).body;
}
