import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { roleField } from '../../shared/descriptions';
import { choiceValue } from '../../shared/choices';
import { additionalFields, postOnce } from '../../shared/create';
import type { ExecutionContext, OperationOption } from '../../shared/types';
import { apiPath } from '../../../shared/transport';
import type { Schemas } from '../../../shared/api';

export const option: OperationOption = {
	name: 'Create',
	value: 'create',
	action: 'Create an API key',
	description: 'Create an API key owned by you',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	"Creates an API key owned by the credential's user, with a unique name and a role (admin or trainer, never above the user's own). The answer holds the full secret key, shown only this once: it becomes part of this conversation. Needs an admin API key.";

export const toolWarning =
	"The new key's full secret is returned to the model and stays in its conversation, the execution data and any MCP client's logs. Expose this tool only where that is acceptable.";

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
		...roleField(
			'The role the key acts with, never above that of its user',
			'The role the new key acts with.',
		),
		{
			displayName:
				'The full key is in the output of this run only: store it safely, it cannot be shown again',
			name: 'keyNotice',
			type: 'notice',
			default: '',
		},
		additionalFields(),
	],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	const body: Schemas['ApiKeyCreate'] = {
		name: this.getNodeParameter('name', itemIndex) as string,
		role: choiceValue.call(this, 'role', itemIndex) as Schemas['ApiKeyCreate']['role'],
	};
	return await postOnce.call(
		this,
		itemIndex,
		apiPath`/orgs/${await context.orgId(itemIndex)}/api-keys`,
		body,
	);
}
