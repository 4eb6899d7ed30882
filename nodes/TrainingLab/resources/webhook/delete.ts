import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { apiRequest } from '../../../shared/transport';
import type { ExecutionContext, OperationOption } from '../../shared/types';

export const webhookIdField: INodeProperties = {
	displayName: 'Webhook ID',
	name: 'webhookId',
	type: 'string',
	default: '',
	required: true,
	description: 'ID of the webhook endpoint',
};

export const option: OperationOption = {
	name: 'Delete',
	value: 'delete',
	action: 'Delete a webhook endpoint',
	description: 'Delete a webhook endpoint',
};

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['delete'] } },
	[webhookIdField],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	const webhookId = this.getNodeParameter('webhookId', itemIndex) as string;
	await apiRequest.call(
		this,
		'DELETE',
		`/orgs/${await context.orgId(itemIndex)}/webhooks/${encodeURIComponent(webhookId)}`,
		{ itemIndex },
	);
	return { deleted: true, id: webhookId };
}
