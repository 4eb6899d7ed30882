import { z } from 'zod';
import {
	EVENT_CATALOGUE,
	EVENT_TYPES,
	type ActivityEvent,
	type EventTypeInfo,
} from '../schemas/events.ts';
import { SAMPLE_EVENT_ID, sampleEventData } from './sample-events.ts';

const EXAMPLE_TIME = '2026-01-05T09:30:00.000Z';
const EXAMPLE_ACTOR = 'grace.hopper@example.com';

let catalogue: EventTypeInfo[] | undefined;

/** Every event type with its meaning, the JSON Schema of its `data` and an example; built once. */
export function eventTypeCatalogue(): EventTypeInfo[] {
	catalogue ??= EVENT_TYPES.map((type) => {
		const { title, description, causedBy, data } = EVENT_CATALOGUE[type];
		const { $schema: _draft, ...dataSchema } = z.toJSONSchema(data, {
			io: 'output',
			target: 'draft-2020-12',
		});
		const example = {
			id: SAMPLE_EVENT_ID,
			type,
			actor: EXAMPLE_ACTOR,
			occurred_at: EXAMPLE_TIME,
			data: sampleEventData(type, EXAMPLE_TIME),
		} as ActivityEvent;
		return { type, title, description, caused_by: causedBy, data_schema: dataSchema, example };
	});
	return catalogue;
}
