import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { choiceValue } from '../../shared/choices';
import { memberLocator, roleField } from '../../shared/descriptions';
import { locatorValue } from '../../shared/list';
import { apiPath, apiRequest } from '../../../shared/transport';
import type { ExecutionContext, OperationOption } from '../../shared/types';
import type { Schemas } from '../../../shared/api';

export const option: OperationOption = {
	name: 'Update Role',
	value: 'updateRole',
	action: 'Update the role of a member',
	description: "Change a member's role",
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	"Changes a member's role, given the member's user_id (a UUID from listing members) and the new role: admin or trainer. The last admin cannot be demoted. Needs an admin API key.";

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['member'], operation: ['updateRole'] } },
	[
		memberLocator,
		...roleField('The new role. The last admin cannot be demoted.', 'The new role of the member.'),
	],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	const userId = locatorValue.call(this, 'member', itemIndex);
	const body: Schemas['MemberRoleUpdate'] = {
		role: choiceValue.call(this, 'role', itemIndex) as Schemas['MemberRoleUpdate']['role'],
	};
	const path = apiPath`/orgs/${await context.orgId(itemIndex)}/members/${userId}`;
	return (await apiRequest.call(this, 'PATCH', path, { body, itemIndex })).body;
}
