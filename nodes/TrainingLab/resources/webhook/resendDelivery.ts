import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { postOnce } from '../../shared/create';
import { apiPath } from '../../../shared/transport';
import { deliveryIdField, webhookIdField, webhookPath } from './webhookPath';
import type { ExecutionContext, OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Resend Delivery',
	value: 'resendDelivery',
	action: 'Resend a delivery of a webhook endpoint',
	description: 'Send one delivery again now, whatever its status',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	'Sends one delivery of a webhook endpoint again now, whatever its status, given the endpoint id (a UUID from listing webhook endpoints) and the delivery id (from getting its deliveries): the same event, marked as a resend, on a fresh retry schedule. A Training Lab Trigger runs its workflow again for it. Needs an admin API key.';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['resendDelivery'] } },
	[webhookIdField, deliveryIdField],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	const deliveryId = this.getNodeParameter('deliveryId', itemIndex) as string;
	const path = await webhookPath.call(
		this,
		itemIndex,
		context,
		apiPath`/deliveries/${deliveryId}/resend`,
	);
	return await postOnce.call(this, itemIndex, path);
}
