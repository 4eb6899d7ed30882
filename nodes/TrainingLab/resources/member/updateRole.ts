import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { memberLocator, roleOptions } from '../../shared/descriptions';
import { locatorValue } from '../../shared/list';
import { apiRequest } from '../../../shared/transport';
import type { ExecutionContext, OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Update Role',
	value: 'updateRole',
	action: 'Update the role of a member',
	description: "Change a member's role",
};

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['member'], operation: ['updateRole'] } },
	[
		memberLocator,
		{
			displayName: 'Role',
			name: 'role',
			type: 'options',
			options: roleOptions,
			default: 'trainer',
			description: 'The new role. The last admin cannot be demoted.',
		},
	],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	const userId = locatorValue.call(this, 'member', itemIndex);
	const body = { role: this.getNodeParameter('role', itemIndex) as string };
	const path = `/orgs/${await context.orgId(itemIndex)}/members/${encodeURIComponent(userId)}`;
	return (await apiRequest.call(this, 'PATCH', path, { body, itemIndex })).body;
}
