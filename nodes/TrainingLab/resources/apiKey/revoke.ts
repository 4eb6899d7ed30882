import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { apiRequest } from '../../../shared/transport';
import type { ExecutionContext, OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Revoke',
	value: 'revoke',
	action: 'Revoke an API key',
	description: 'Revoke an API key',
};

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
		`/orgs/${await context.orgId(itemIndex)}/api-keys/${encodeURIComponent(keyId)}`,
		{ itemIndex },
	);
	return { revoked: true, id: keyId };
}
