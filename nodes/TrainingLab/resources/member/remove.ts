import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { memberLocator } from '../../shared/descriptions';
import { locatorValue } from '../../shared/list';
import { apiPath, apiRequest } from '../../../shared/transport';
import type { ExecutionContext, OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Remove',
	value: 'remove',
	action: 'Remove a member',
	description: 'Remove a member and revoke their API keys',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	'Removes a member by user_id (a UUID from listing members) and revokes all of their API keys at once. Cannot be undone (the person can only be added again as a new member). The last admin cannot be removed. Needs an admin API key.';

export const toolWarning =
	'A model that calls this tool removes members and revokes their keys, which cannot be undone. Consider a human review step for this tool.';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['member'], operation: ['remove'] } },
	[
		{
			...memberLocator,
			description: 'The member to remove. All their API keys are revoked at once.',
		},
	],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	const userId = locatorValue.call(this, 'member', itemIndex);
	await apiRequest.call(
		this,
		'DELETE',
		apiPath`/orgs/${await context.orgId(itemIndex)}/members/${userId}`,
		{ itemIndex },
	);
	return { removed: true, user_id: userId };
}
