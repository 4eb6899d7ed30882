import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { personFields, roleField } from '../../shared/descriptions';
import { choiceValue } from '../../shared/choices';
import { additionalFields, postOnce } from '../../shared/create';
import type { ExecutionContext, OperationOption } from '../../shared/types';
import { apiPath } from '../../../shared/transport';
import type { Schemas } from '../../../shared/api';

export const option: OperationOption = {
	name: 'Add',
	value: 'add',
	action: 'Add a member',
	description: 'Add a member to the organization',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	'Adds a person to the organization by e-mail and name, with a role: admin or trainer. Fails with already_member if the e-mail is already a member. Needs an admin API key.';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['member'], operation: ['add'] } },
	[
		...personFields,
		...roleField('The role of the new member', 'The role of the new member.'),
		additionalFields(),
	],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	const body: Schemas['MemberCreate'] = {
		email: this.getNodeParameter('email', itemIndex) as string,
		name: this.getNodeParameter('name', itemIndex) as string,
		// The API refuses a role it does not know (a model may type anything).
		role: choiceValue.call(this, 'role', itemIndex) as Schemas['MemberCreate']['role'],
	};
	return await postOnce.call(
		this,
		itemIndex,
		apiPath`/orgs/${await context.orgId(itemIndex)}/members`,
		body,
	);
}
