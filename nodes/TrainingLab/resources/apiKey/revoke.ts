import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { apiPath, apiRequest } from '../../../shared/transport';
import type { ExecutionContext, OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Revoke',
	value: 'revoke',
	action: 'Revoke an API key',
	description: 'Revoke an API key',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	'Revokes an API key by its id (a UUID from listing API keys): the key stops working at once. Cannot be undone. Needs an admin API key.';

export const toolWarning =
	'A model that calls this tool revokes API keys at once, which cannot be undone. Consider a human review step for this tool.';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['apiKey'], operation: ['revoke'] } },
	[
		{
			displayName: 'Key ID',
			name: 'keyId',
			type: 'string',
			default: '',
			required: true,
			description: 'ID of the key to revoke (not the key itself). It stops working at once.',
		},
	],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	const keyId = this.getNodeParameter('keyId', itemIndex) as string;
	await apiRequest.call(
		this,
		'DELETE',
		apiPath`/orgs/${await context.orgId(itemIndex)}/api-keys/${keyId}`,
		{ itemIndex },
	);
	return { revoked: true, id: keyId };
}
