import { z } from 'zod';
import { Timestamp, Uuid } from './common.ts';
import { described, EventType, type EventDefinition } from './event-definition.ts';

const webhookFields = {
	webhook_id: described(Uuid, 'The webhook endpoint.'),
	url: described(z.string(), 'Its URL, as it is now.'),
};
const deliveredEvent = {
	event_id: described(Uuid, 'The event delivered.'),
	event_type: described(EventType, 'Its type.'),
	delivery_id: described(Uuid, 'The delivery of that event to this endpoint.'),
};
const change = <T extends z.ZodType>(value: T, what: string) =>
	z
		.object({ from: value, to: value })
		.meta({ description: `${what}: before and after.` })
		.optional();

/** The last failed attempt, as the events that report failures give it. */
const lastFailure = {
	last_status_code: described(
		z.int().nullable(),
		'HTTP status of the last answer; null if none came (timeout, connection error).',
	),
	last_error: described(z.string(), 'Why the last attempt failed.'),
};

/** The event types of webhook endpoints and their deliveries (event-catalogue.ts holds them all). */
export const WEBHOOK_EVENTS = {
	'webhook.created': {
		title: 'Webhook Created',
		description: 'A webhook endpoint was registered. Its secret is never in an event.',
		causedBy: '`POST /orgs/{orgId}/webhooks`.',
		data: z.object({
			...webhookFields,
			event_types: described(z.array(EventType), 'The event types it subscribes to.'),
		}),
	},
	'webhook.deleted': {
		title: 'Webhook Deleted',
		description: 'A webhook endpoint was deleted, with its deliveries.',
		causedBy:
			'`DELETE /orgs/{orgId}/webhooks/{webhookId}`; the server deletes an endpoint held too long (`actor` is then `system`).',
		data: z.object({
			...webhookFields,
			reason: described(
				z.string().nullable(),
				'`null` when a person deleted it; why, when the server did.',
			),
		}),
	},
	'webhook.disabled': {
		title: 'Webhook Disabled',
		description:
			'The server disabled a webhook endpoint; it is sent nothing until a person enables it.',
		causedBy: 'A delivery answered `410 Gone` (`actor` is `system`).',
		data: z.object({ ...webhookFields, reason: described(z.string(), 'Why it was disabled.') }),
	},
	'webhook.delivery_exhausted': {
		title: 'Webhook Delivery Exhausted',
		description:
			'A delivery gave up: every attempt of its retry schedule failed, and nothing more is sent unless a person resends or recovers it.',
		causedBy:
			'The last attempt of the retry schedule failing (`actor` is `system`). Not recorded for test events, nor for a `webhook.delivery_exhausted` event whose own delivery gives up (no chain of alerts).',
		data: z.object({
			...webhookFields,
			...deliveredEvent,
			attempts: described(z.int(), 'How many attempts it had in all.'),
			...lastFailure,
		}),
	},
	'webhook.failing': {
		title: 'Webhook Failing',
		description:
			"A webhook endpoint's attempts keep failing: 5 in a row, none delivered between. Recorded once an incident; `webhook.recovered` ends it.",
		causedBy:
			'The fifth failed attempt in a row to the endpoint (`actor` is `system`): an error answer, a timeout or no connection. A `410` disables the endpoint instead.',
		data: z.object({
			...webhookFields,
			consecutive_failures: described(z.int(), 'Failed attempts in a row so far.'),
			...lastFailure,
		}),
	},
	'webhook.recovered': {
		title: 'Webhook Recovered',
		description: 'A failing webhook endpoint answered again: a delivery succeeded.',
		causedBy:
			'The first delivered attempt to an endpoint after its `webhook.failing` (`actor` is `system`).',
		data: z.object({
			...webhookFields,
			failing_since: described(Timestamp, 'When the endpoint started failing.'),
			failed_attempts: described(z.int(), 'Failed attempts in a row before this one.'),
		}),
	},
	'webhook.held': {
		title: 'Webhook Held',
		description:
			"The server held a webhook endpoint: n8n answered that its workflow's webhook is not registered. Its deliveries are kept, each attempt using up no retry, until the workflow is activated again and its trigger releases the endpoint.",
		causedBy:
			'A delivery answered n8n\'s `404` "The requested webhook … is not registered" (`actor` is `system`): the workflow was deactivated or deleted while its trigger could not tell the API (n8n down, its database restored, the instance moved). Not for an attempt started within 10 s of the endpoint\'s creation or release, while n8n may be registering the path.',
		data: z.object({
			...webhookFields,
			reason: described(z.string(), 'Why it was held, and what releases it.'),
			...lastFailure,
		}),
	},
	'webhook.updated': {
		title: 'Webhook Updated',
		description: 'A webhook endpoint was changed: each changed field from and to.',
		causedBy: '`PATCH /orgs/{orgId}/webhooks/{webhookId}` that changes something.',
		data: z.object({
			...webhookFields,
			changes: z
				.object({
					url: change(z.string(), 'Its URL'),
					event_types: change(z.array(EventType), 'The event types it subscribes to'),
					description: change(z.string().nullable(), 'Its description'),
					disabled: change(z.boolean(), 'Whether it is disabled'),
					held: change(z.boolean(), 'Whether it is held'),
					require_receipt: change(z.boolean(), 'Whether it requires receipts'),
				})
				.meta({ description: 'Each field that changed.' }),
			skipped: described(
				z.int().optional(),
				'Present on a release with `skip_held_events`: how many deliveries it gave up.',
			),
		}),
	},
	'webhook.secret_rotated': {
		title: 'Webhook Secret Rotated',
		description:
			"A webhook endpoint's signing secret was replaced. Neither secret is ever in an event.",
		causedBy:
			'`POST /orgs/{orgId}/webhooks/{webhookId}/rotate-secret` (the n8n Training Lab Trigger rotates its own on activation).',
		data: z.object({
			...webhookFields,
			previous_secret_expires_at: described(
				Timestamp.nullable(),
				'Until when deliveries are signed with the old secret too; null when it ended at once.',
			),
		}),
	},
	'webhook.test_sent': {
		title: 'Webhook Test Event Sent',
		description: 'A test event was queued for one endpoint.',
		causedBy: '`POST /orgs/{orgId}/webhooks/{webhookId}/test`.',
		data: z.object({ ...webhookFields, ...deliveredEvent }),
	},
	'webhook.delivery_resent': {
		title: 'Webhook Delivery Resent',
		description: 'A delivery was queued to be sent again.',
		causedBy: '`POST /orgs/{orgId}/webhooks/{webhookId}/deliveries/{deliveryId}/resend`.',
		data: z.object({
			...webhookFields,
			...deliveredEvent,
			resend: described(z.int(), 'Which resend of that delivery this is, from 1.'),
		}),
	},
	'webhook.deliveries_recovered': {
		title: 'Webhook Deliveries Recovered',
		description: 'The given-up deliveries of an endpoint were queued again.',
		causedBy: '`POST /orgs/{orgId}/webhooks/{webhookId}/recover`.',
		data: z.object({
			...webhookFields,
			since: described(Timestamp, 'Deliveries of events that occurred at or after this time.'),
			queued: described(z.int(), 'How many were queued.'),
		}),
	},
} satisfies Record<Extract<EventType, `webhook.${string}`>, EventDefinition>;
