import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { returnAllOrLimit } from '../../shared/descriptions';
import { getList } from '../../shared/list';
import { webhookIdField, webhookPath } from './webhookPath';
import type { ExecutionContext, OperationOption } from '../../shared/types';
import type { Json } from '../../../shared/api';

const listDeliveries = getList<Json<'WebhookDelivery'>>;

export const option: OperationOption = {
	name: 'Get Deliveries',
	value: 'getDeliveries',
	action: 'Get deliveries of a webhook endpoint',
	description: 'List deliveries to an endpoint, newest first',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	'Lists the deliveries to a webhook endpoint, given its id (a UUID from listing webhook endpoints), newest first: event, status (pending, succeeded, failed or exhausted), the next retry, and every attempt with its time, HTTP status or error, and duration. Needs an admin API key.';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['getDeliveries'] } },
	[
		webhookIdField,
		...returnAllOrLimit(),
		{
			displayName: 'Simplify',
			name: 'simplify',
			type: 'boolean',
			default: false,
			description:
				'Whether to return only the event type, status, attempts and last status code of each delivery',
		},
	],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject[]> {
	const path = await webhookPath.call(this, itemIndex, context, '/deliveries');
	const deliveries = await listDeliveries.call(this, itemIndex, path);
	if (!this.getNodeParameter('simplify', itemIndex)) return deliveries;
	return deliveries.map(({ id, event_type, status, attempts, last_status_code }) => ({
		id,
		event_type,
		status,
		attempts,
		last_status_code,
	}));
}
