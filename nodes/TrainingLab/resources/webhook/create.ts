import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { EVENT_TYPE_OPTIONS } from '../../../shared/events';
import { choiceField, choiceValues } from '../../shared/choices';
import { additionalFields, postOnce } from '../../shared/create';
import type { ExecutionContext, OperationOption } from '../../shared/types';
import { apiPath } from '../../../shared/transport';
import type { EventType, Schemas } from '../../../shared/api';

export const option: OperationOption = {
	name: 'Create',
	value: 'create',
	action: 'Create a webhook endpoint',
	description: 'Register a URL to receive signed events',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	"Registers a URL to receive the organization's events (signed POST requests), for the given event types. The answer holds the endpoint's signing secret, shown only this once. Needs an admin API key.";

export const toolWarning =
	"The endpoint's signing secret is returned to the model and stays in its conversation, the execution data and any MCP client's logs. Expose this tool only where that is acceptable.";

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['create'] } },
	[
		{
			displayName: 'URL',
			name: 'url',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://example.com/hooks/training-lab',
			description: 'An https URL of a public host that receives the signed events',
		},
		...choiceField(
			{
				displayName: 'Event Types',
				name: 'eventTypes',
				type: 'multiOptions',
				options: EVENT_TYPE_OPTIONS,
				default: [],
				required: true,
			},
			{ key: 'event_types', description: 'The events the endpoint receives.' },
		),
		additionalFields({
			displayName: 'Description',
			name: 'description',
			type: 'string',
			default: '',
		}),
	],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	const body: Schemas['WebhookCreate'] = {
		url: this.getNodeParameter('url', itemIndex) as string,
		event_types: choiceValues.call(this, 'eventTypes', itemIndex) as EventType[],
	};
	const additional = this.getNodeParameter('additionalFields', itemIndex) as {
		description?: string;
	};
	if (additional.description) body.description = additional.description;
	const path = apiPath`/orgs/${await context.orgId(itemIndex)}/webhooks`;
	return await postOnce.call(this, itemIndex, path, body);
}
