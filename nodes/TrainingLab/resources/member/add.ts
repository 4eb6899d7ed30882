import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { personFields, roleOptions } from '../../shared/descriptions';
import { apiRequest, idempotencyKeyFor } from '../../../shared/transport';
import type { ExecutionContext, OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Add',
	value: 'add',
	action: 'Add a member',
	description: 'Add a member to the organization',
};

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['member'], operation: ['add'] } },
	[
		...personFields,
		{
			displayName: 'Role',
			name: 'role',
			type: 'options',
			options: roleOptions,
			default: 'trainer',
		},
	],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	const body = {
		email: this.getNodeParameter('email', itemIndex) as string,
		name: this.getNodeParameter('name', itemIndex) as string,
		role: this.getNodeParameter('role', itemIndex) as string,
	};
	const path = `/orgs/${await context.orgId(itemIndex)}/members`;
	const idempotencyKey = idempotencyKeyFor(this, itemIndex, body);
	return (await apiRequest.call(this, 'POST', path, { body, idempotencyKey, itemIndex })).body;
}
