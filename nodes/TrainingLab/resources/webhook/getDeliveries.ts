import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { returnAllOrLimit } from '../../shared/descriptions';
import { getList } from '../../shared/list';
import { webhookIdField, webhookPath } from './webhookPath';
import type { ExecutionContext, OperationOption } from '../../shared/types';
import type { Json } from '../../../shared/api';
import { filterQuery, listFilters } from '../../shared/filters';

const listDeliveries = getList<Json<'WebhookDelivery'>>;

export const option: OperationOption = {
	name: 'Get Deliveries',
	value: 'getDeliveries',
	action: 'Get deliveries of a webhook endpoint',
	description: 'List deliveries to an endpoint, newest first, of some states, events or times only',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	'Lists the deliveries to a webhook endpoint, given its id (a UUID from listing webhook endpoints), newest first: event, status (pending, succeeded, failed or exhausted), the next retry, and every attempt with its time, what started it, HTTP status or error, and duration (Get Delivery adds the answer of the receiver to each). Can list only some statuses, event types, test or real events, and events at or after a time (since) and before another (until), ISO 8601 date-times. Needs an admin API key.';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['getDeliveries'] } },
	[
		webhookIdField,
		...returnAllOrLimit(),
		listFilters('deliveries of events', [
			{
				displayName: 'Status',
				name: 'status',
				type: 'multiOptions',
				options: [
					{ name: 'Exhausted', value: 'exhausted', description: 'Given up: no more tries' },
					{ name: 'Failed', value: 'failed', description: 'Failed, and tried again later' },
					{ name: 'Pending', value: 'pending', description: 'Not tried yet' },
					{ name: 'Succeeded', value: 'succeeded' },
				],
				default: [],
				description: 'Only deliveries in these states',
			},
			{
				displayName: 'Test Events',
				name: 'test',
				type: 'options',
				options: [
					{ name: 'Include', value: 'include' },
					{ name: 'Only', value: 'only' },
					{ name: 'Exclude', value: 'exclude' },
				],
				default: 'include',
				description: 'Whether to list the deliveries of test events too, only those, or none',
			},
		]),
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
	// The deliveries list names its type filter `event_type`; the activity log's, `types`.
	const { types, ...query } = filterQuery.call(this, itemIndex);
	const deliveries = await listDeliveries.call(this, itemIndex, path, {
		...query,
		...(types === undefined ? {} : { event_type: types }),
	});
	if (!this.getNodeParameter('simplify', itemIndex)) return deliveries;
	return deliveries.map(({ id, event_type, status, attempts, last_status_code }) => ({
		id,
		event_type,
		status,
		attempts,
		last_status_code,
	}));
}
