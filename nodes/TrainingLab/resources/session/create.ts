import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { publishedLabVersionLocator } from '../../shared/descriptions';
import { locatorValue } from '../../shared/list';
import { toRfc3339 } from '../../shared/time';
import { additionalFields, postOnce } from '../../shared/create';
import type { OperationOption } from '../../shared/types';
import type { Schemas } from '../../../shared/api';

export const option: OperationOption = {
	name: 'Create',
	value: 'create',
	action: 'Create a session',
	description: 'Create a scheduled training session',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	"Creates a scheduled training session: a title, the id of a published lab version (a UUID from listing a lab's versions) and a capacity from 1 to 1000 participants, optionally when it starts (ISO 8601 date-time). Each call creates a new session.";

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
		additionalFields({
			displayName: 'Starts At',
			name: 'startsAt',
			type: 'dateTime',
			default: '',
			description: 'When the session starts',
		}),
	],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const additional = this.getNodeParameter('additionalFields', itemIndex) as { startsAt?: string };
	const body: Schemas['SessionCreate'] = {
		title: this.getNodeParameter('title', itemIndex) as string,
		lab_version_id: locatorValue.call(this, 'labVersion', itemIndex),
		capacity: this.getNodeParameter('capacity', itemIndex) as number,
	};
	if (additional.startsAt)
		body.starts_at = toRfc3339(String(additional.startsAt), this.getTimezone());
	return await postOnce.call(this, itemIndex, '/sessions', body);
}
