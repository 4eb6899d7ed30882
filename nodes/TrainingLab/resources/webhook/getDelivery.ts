import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { apiPath, apiRequest } from '../../../shared/transport';
import { deliveryIdField, webhookIdField, webhookPath } from './webhookPath';
import type { ExecutionContext, OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Get Delivery',
	value: 'getDelivery',
	action: 'Get a delivery of a webhook endpoint',
	description: "Get one delivery with every attempt and the receiver's answer to each",
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	"Gets one delivery of a webhook endpoint, given the endpoint id (a UUID from listing webhook endpoints) and the delivery id (from getting its deliveries): its status and every attempt with what started it (schedule, retry_after, resend, recovery or test), its time, duration, HTTP status or error, and the receiver's answer (safe headers and the first 4 KB of the body, body_truncated when longer). Use it to find out why a delivery failed. Needs an admin API key.";

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['getDelivery'] } },
	[webhookIdField, deliveryIdField],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	const deliveryId = this.getNodeParameter('deliveryId', itemIndex) as string;
	const path = await webhookPath.call(this, itemIndex, context, apiPath`/deliveries/${deliveryId}`);
	return (await apiRequest.call(this, 'GET', path, { itemIndex })).body;
}
