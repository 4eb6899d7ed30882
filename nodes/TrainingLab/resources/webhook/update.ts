import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import { EVENT_TYPE_OPTIONS } from '../../../shared/events';
import { apiRequest } from '../../../shared/transport';
import { choiceValues } from '../../shared/choices';
import { webhookIdField, webhookPath } from './webhookPath';
import type { ExecutionContext, OperationOption } from '../../shared/types';
import type { EventType, Schemas } from '../../../shared/api';

export const option: OperationOption = {
	name: 'Update',
	value: 'update',
	action: 'Update a webhook endpoint',
	description: 'Change the URL, events or description of an endpoint, or disable or enable it',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	'Changes a webhook endpoint, given its id (a UUID from listing webhook endpoints): any of its url (https, public host), event_types, description, and whether it is enabled. A disabled endpoint receives nothing, and what it subscribes to is kept as given-up deliveries; enabling it sends nothing by itself (recover the deliveries for that). Needs an admin API key.';

export const toolWarning =
	'A model that calls this tool can point an endpoint at another URL or disable it. Consider a human review step for this tool.';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['update'] } },
	[
		webhookIdField,
		{
			displayName: 'Update Fields',
			name: 'updateFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			options: [
				{
					displayName: 'Description',
					name: 'description',
					type: 'string',
					default: '',
					description: 'The new description; empty removes it',
				},
				{
					displayName: 'Enabled',
					name: 'enabled',
					type: 'boolean',
					default: true,
					description:
						'Whether the endpoint receives deliveries. Off keeps what it subscribes to as given-up deliveries; on sends nothing by itself: use Recover Deliveries.',
				},
				{
					displayName: 'Event Types',
					name: 'eventTypes',
					type: 'multiOptions',
					options: EVENT_TYPE_OPTIONS,
					default: [],
					description: 'The events the endpoint receives, instead of those it has',
				},
				{
					displayName: 'URL',
					name: 'url',
					type: 'string',
					default: '',
					placeholder: 'https://example.com/hooks/training-lab',
					description: 'An https URL of a public host',
				},
			],
		},
	],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	const fields = this.getNodeParameter('updateFields', itemIndex) as {
		url?: string;
		eventTypes?: string[] | string;
		description?: string;
		enabled?: boolean;
	};
	const body: Schemas['WebhookUpdate'] = {};
	if (fields.url !== undefined) body.url = fields.url;
	if (fields.eventTypes !== undefined)
		body.event_types = choiceValues.call(this, 'updateFields.eventTypes', itemIndex) as EventType[];
	if (fields.description !== undefined) body.description = fields.description;
	if (fields.enabled !== undefined) body.disabled = !fields.enabled;
	if (Object.keys(body).length === 0)
		throw new NodeOperationError(this.getNode(), 'Add at least one field to update', {
			itemIndex,
			description: 'Update Fields: URL, Event Types, Description or Enabled.',
		});
	const path = await webhookPath.call(this, itemIndex, context);
	return (await apiRequest.call(this, 'PATCH', path, { body, itemIndex })).body;
}
