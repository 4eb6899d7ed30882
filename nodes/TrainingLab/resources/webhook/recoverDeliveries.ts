import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { postOnce } from '../../shared/create';
import { toRfc3339 } from '../../shared/time';
import { webhookIdField, webhookPath } from './webhookPath';
import type { ExecutionContext, OperationOption } from '../../shared/types';
import type { Schemas } from '../../../shared/api';

export const option: OperationOption = {
	name: 'Recover Deliveries',
	value: 'recoverDeliveries',
	action: 'Recover failed deliveries of a webhook endpoint',
	description: 'Send again every delivery that failed or was given up since a time',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	'Sends again every delivery of a webhook endpoint that failed or was given up, for events since a time (ISO 8601 date-time, not in the future), given the endpoint id (a UUID from listing webhook endpoints); each goes on a fresh retry schedule at the pace the endpoint answers. Returns how many were queued. Needs an admin API key.';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['recoverDeliveries'] } },
	[
		webhookIdField,
		{
			displayName: 'Since',
			name: 'since',
			type: 'dateTime',
			default: '',
			required: true,
			description:
				'Deliveries of events that occurred at or after this time are sent again (say, when the receiver went down)',
		},
	],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	const since = toRfc3339(String(this.getNodeParameter('since', itemIndex)), this.getTimezone());
	const path = await webhookPath.call(this, itemIndex, context, '/recover');
	const body: Schemas['WebhookRecoverRequest'] = { since };
	return await postOnce.call(this, itemIndex, path, body);
}
