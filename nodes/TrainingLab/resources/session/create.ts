import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { publishedLabVersionLocator } from '../../shared/descriptions';
import { locatorValue } from '../../shared/list';
import { toRfc3339 } from '../../shared/time';
import { apiRequest, idempotencyKeyFor } from '../../../shared/transport';
import type { OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Create',
	value: 'create',
	action: 'Create a session',
	description: 'Create a scheduled training session',
};

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['session'], operation: ['create'] } },
	[
		{
			displayName: 'Title',
			name: 'title',
			type: 'string',
			default: '',
			required: true,
			description: '1–200 characters',
		},
		publishedLabVersionLocator,
		{
			displayName: 'Capacity',
			name: 'capacity',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 1000, numberPrecision: 0 },
			default: 20,
			required: true,
			description: 'How many participants the session holds',
		},
		{
			displayName: 'Additional Fields',
			name: 'additionalFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			options: [
				{
					displayName: 'Idempotency Key',
					name: 'idempotencyKey',
					type: 'string',
					default: '',
					description:
						'Identifies this session across executions (for example an ID from your source list): a second create with the same key returns the first session instead of a duplicate. By default the key is derived from the execution, node and item.',
				},
				{
					displayName: 'Starts At',
					name: 'startsAt',
					type: 'dateTime',
					default: '',
					description: 'When the session starts',
				},
			],
		},
	],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const additional = this.getNodeParameter('additionalFields', itemIndex) as {
		startsAt?: string;
		idempotencyKey?: string;
	};
	const body: IDataObject = {
		title: this.getNodeParameter('title', itemIndex) as string,
		lab_version_id: locatorValue.call(this, 'labVersion', itemIndex),
		capacity: this.getNodeParameter('capacity', itemIndex) as number,
	};
	if (additional.startsAt)
		body.starts_at = toRfc3339(String(additional.startsAt), this.getTimezone());
	const idempotencyKey = additional.idempotencyKey || idempotencyKeyFor(this, itemIndex, body);
	return (await apiRequest.call(this, 'POST', '/sessions', { body, idempotencyKey, itemIndex }))
		.body;
}
