import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { roleOptions } from '../../shared/descriptions';
import { apiRequest, idempotencyKeyFor } from '../../../shared/transport';
import type { ExecutionContext, OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Create',
	value: 'create',
	action: 'Create an API key',
	description: 'Create an API key owned by you',
};

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['apiKey'], operation: ['create'] } },
	[
		{
			displayName: 'Name',
			name: 'name',
			type: 'string',
			default: '',
			required: true,
			description: 'Unique among the active keys of the organization',
		},
		{
			displayName: 'Role',
			name: 'role',
			type: 'options',
			options: roleOptions,
			default: 'trainer',
			description: 'The role the key acts with, never above that of its user',
		},
		{
			displayName:
				'The full key is in the output of this run only: store it safely, it cannot be shown again',
			name: 'keyNotice',
			type: 'notice',
			default: '',
		},
	],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	const body = {
		name: this.getNodeParameter('name', itemIndex) as string,
		role: this.getNodeParameter('role', itemIndex) as string,
	};
	const idempotencyKey = idempotencyKeyFor(this, itemIndex, body);
	const path = `/orgs/${await context.orgId(itemIndex)}/api-keys`;
	return (await apiRequest.call(this, 'POST', path, { body, idempotencyKey, itemIndex })).body;
}
