import { z } from 'zod';
import {
	listParameter,
	listQuery,
	rangeInOrder,
	timeRange,
	Timestamp,
	Uuid,
	quoted,
} from './common.ts';
import { described, EVENT_CATALOGUE, EVENT_TYPES, EventType } from './event-catalogue.ts';

// The events as the API hands them out: in the activity log, in webhook deliveries, in
// `GET /event-types`, and the activity log's query. What each type means is event-catalogue.ts.
export { EVENT_CATALOGUE, EVENT_TYPES, EventType, type EventData } from './event-catalogue.ts';

const eventId = described(Uuid, "The event's id; a webhook delivery's `webhook-id`.");
const actor = described(
	z.string(),
	'E-mail of the user whose key caused the event; `system` for what the server does on its own.',
);

/** `member.removed` → `MemberRemoved`: the stem of the component names of one type's schemas. */
export function eventSchemaName(type: EventType): string {
	return type
		.split(/[._]/)
		.map((word) => word[0].toUpperCase() + word.slice(1))
		.join('');
}

function eventOf<T extends EventType>(type: T) {
	const { description, data } = EVENT_CATALOGUE[type];
	return z
		.object({ id: eventId, type: z.literal(type), actor, occurred_at: Timestamp, data })
		.meta({ description });
}

/** One event of each type, as the activity log lists it. */
export const EVENT_SCHEMAS = Object.fromEntries(
	EVENT_TYPES.map((type) => [type, eventOf(type)]),
) as { [T in EventType]: ReturnType<typeof eventOf<T>> };

export const ActivityEvent = z
	.discriminatedUnion(
		'type',
		EVENT_TYPES.map((type) => EVENT_SCHEMAS[type]) as unknown as [
			(typeof EVENT_SCHEMAS)[EventType],
			...(typeof EVENT_SCHEMAS)[EventType][],
		],
	)
	.meta({ description: 'An activity-log event; `type` tells which `data` it has.' });
export type ActivityEvent = { [T in EventType]: z.infer<(typeof EVENT_SCHEMAS)[T]> }[EventType];

const deliveryFields = {
	org_id: described(Uuid, 'The organization the event belongs to.'),
	test: z.literal(true).optional().meta({
		description: 'Present on a test event: a sample of the type, not a real change.',
	}),
	resend: z.int().min(1).optional().meta({
		description: 'Present when a person resent this delivery: which resend it is, from 1.',
	}),
};

function deliveryOf<T extends EventType>(type: T) {
	return EVENT_SCHEMAS[type].extend(deliveryFields).meta({
		description: `A \`${type}\` event delivered to a webhook endpoint. ${EVENT_CATALOGUE[type].description}`,
	});
}

/** The body of a webhook delivery of each type: the event, its organization, and whether it is a test or a resend. */
export const DELIVERY_SCHEMAS = Object.fromEntries(
	EVENT_TYPES.map((type) => [type, deliveryOf(type)]),
) as { [T in EventType]: ReturnType<typeof deliveryOf<T>> };
export type WebhookDeliveryBody = {
	[T in EventType]: z.infer<(typeof DELIVERY_SCHEMAS)[T]>;
}[EventType];

/** What `GET /event-types` lists for each type. */
export const EventTypeInfo = z
	.object({
		type: EventType,
		title: z.string().meta({ description: 'What n8n and the console call it.' }),
		description: z.string().meta({ description: 'What happened.' }),
		caused_by: z
			.string()
			.meta({ description: 'The requests, or the work of the server, that record it.' }),
		data_schema: z.record(z.string(), z.unknown()).meta({
			description: "The JSON Schema (draft 2020-12) of the event's `data`, each field described.",
		}),
		example: ActivityEvent.meta({
			description: 'An event of the type as the activity log lists it, with sample values.',
		}),
	})
	.meta({ description: 'One event type: what it means and the shape of its `data`.' });
export const EventTypeCatalogue = z.array(EventTypeInfo);
export type EventTypeInfo = z.infer<typeof EventTypeInfo>;

const KnownEventType = z.enum(EVENT_TYPES, {
	error: (issue) => `Unknown event type ${quoted(issue.input)}; GET /event-types lists them`,
});

/** A filter on event types, as the lists take it: an unknown type is refused by name. */
export const eventTypesParameter = (description: string) =>
	listParameter(KnownEventType, description);

/** `GET /orgs/{orgId}/events`: a page, of some types only, within a time range. */
export const EventListQuery = listQuery(50)
	.extend({
		types: eventTypesParameter(
			'Only events of these types: repeat the parameter (`types=member.removed&types=org.closed`) or separate them with commas.',
		),
		...timeRange('events that occurred'),
	})
	.refine(...rangeInOrder);
export type EventListQuery = z.output<typeof EventListQuery>;
