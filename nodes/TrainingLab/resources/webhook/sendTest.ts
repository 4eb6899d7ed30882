import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { EVENT_TYPE_OPTIONS } from '../../../shared/events';
import { choiceField, choiceValue } from '../../shared/choices';
import { postOnce } from '../../shared/create';
import { webhookIdField, webhookPath } from './webhookPath';
import type { ExecutionContext, OperationOption } from '../../shared/types';
import type { EventType, Schemas } from '../../../shared/api';

export const option: OperationOption = {
	name: 'Send Test Event',
	value: 'sendTest',
	action: 'Send a test event to a webhook endpoint',
	description: 'Send a signed sample event of a type the endpoint subscribes to',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	'Sends a test event to a webhook endpoint, given its id (a UUID from listing webhook endpoints) and an event type it subscribes to: a signed sample with every field of a real event, sample values (example.com addresses) and "test": true. Nothing in the organization changes. Returns the queued delivery. Needs an admin API key.';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['sendTest'] } },
	[
		webhookIdField,
		...choiceField(
			{
				displayName: 'Event Type',
				name: 'eventType',
				type: 'options',
				options: EVENT_TYPE_OPTIONS,
				default: 'member.removed',
				required: true,
				description: 'A type the endpoint subscribes to',
			},
			{ key: 'event_type', description: 'The type of the test event.' },
		),
	],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	const path = await webhookPath.call(this, itemIndex, context, '/test');
	const body: Schemas['WebhookTestRequest'] = {
		event_type: choiceValue.call(this, 'eventType', itemIndex) as EventType,
	};
	return await postOnce.call(this, itemIndex, path, body);
}
