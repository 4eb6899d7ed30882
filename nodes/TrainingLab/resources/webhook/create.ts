import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { EVENT_TYPE_OPTIONS } from '../../../shared/events';
import { apiRequest, idempotencyKeyFor } from '../../../shared/transport';
import type { ExecutionContext, OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Create',
	value: 'create',
	action: 'Create a webhook endpoint',
	description: 'Register a URL to receive signed events',
};

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
		{
			displayName: 'Event Types',
			name: 'eventTypes',
			type: 'multiOptions',
			options: EVENT_TYPE_OPTIONS,
			default: [],
			required: true,
		},
		{
			displayName: 'Additional Fields',
			name: 'additionalFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			options: [{ displayName: 'Description', name: 'description', type: 'string', default: '' }],
		},
	],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	const body: IDataObject = {
		url: this.getNodeParameter('url', itemIndex) as string,
		event_types: this.getNodeParameter('eventTypes', itemIndex) as string[],
		...(this.getNodeParameter('additionalFields', itemIndex) as IDataObject),
	};
	const idempotencyKey = idempotencyKeyFor(this, itemIndex, body);
	const path = `/orgs/${await context.orgId(itemIndex)}/webhooks`;
	return (await apiRequest.call(this, 'POST', path, { body, idempotencyKey, itemIndex })).body;
}
