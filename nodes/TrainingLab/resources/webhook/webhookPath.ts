import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import type { ExecutionContext } from '../../shared/types';
import { apiPath } from '../../../shared/transport';

export const webhookIdField: INodeProperties = {
	displayName: 'Webhook ID',
	name: 'webhookId',
	type: 'string',
	default: '',
	required: true,
	description: 'ID of the webhook endpoint',
};

export const deliveryIdField: INodeProperties = {
	displayName: 'Delivery ID',
	name: 'deliveryId',
	type: 'string',
	default: '',
	required: true,
	description: 'ID of the delivery, from Get Deliveries',
};

/** `/orgs/{orgId}/webhooks/{webhookId}` of the endpoint named in the item's Webhook ID parameter. */
export async function webhookPath(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
	suffix = '',
): Promise<string> {
	const webhookId = this.getNodeParameter('webhookId', itemIndex) as string;
	return apiPath`/orgs/${await context.orgId(itemIndex)}/webhooks/${webhookId}` + suffix;
}
