import { z } from 'zod';
import { Role, Timestamp, Uuid } from './common.ts';
import { LAB_TIERS } from './labs.ts';

export const EVENT_TYPES = [
	'member.added',
	'member.role_changed',
	'member.removed',
	'org.closed',
	'session.created',
	'session.started',
	'session.ended',
	'session.deleted',
	'session.join_code_rotated',
	'participant.joined',
	'lab.created',
	'lab_version.created',
	'lab_version.published',
	'api_key.created',
	'api_key.revoked',
	'webhook.created',
	'webhook.deleted',
	'webhook.disabled',
	'webhook.delivery_exhausted',
	'webhook.failing',
	'webhook.recovered',
	'webhook.updated',
	'webhook.secret_rotated',
	'webhook.test_sent',
	'webhook.delivery_resent',
	'webhook.deliveries_recovered',
] as const;
export const EventType = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof EventType>;

/** `schema`, with what it holds said for the OpenAPI document. */
export const described = <T extends z.ZodType>(schema: T, description: string) =>
	schema.meta({ description }) as T;

const userId = described(Uuid, 'The member: their `user_id`.');
const email = described(z.string(), 'Their e-mail address, lower-cased.');
const sessionFields = {
	session_id: described(Uuid, 'The session.'),
	title: described(z.string(), 'Its title.'),
};
const versionFields = {
	lab_id: described(Uuid, 'The lab.'),
	version_id: described(Uuid, 'The version.'),
	version: described(z.int(), 'Its number within the lab, from 1.'),
};
const keyFields = {
	key_id: described(Uuid, 'The API key.'),
	name: described(z.string(), 'Its name.'),
	prefix: described(
		z.string(),
		'The first characters of the key, as lists show it; never the key.',
	),
};
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

interface EventDefinition {
	/** What the editor and the console call it. */
	title: string;
	/** What happened, in a sentence. */
	description: string;
	/** The requests (or the server's own work) that record it. */
	causedBy: string;
	/** Its `data`: every field, each described. */
	data: z.ZodObject;
}

/**
 * Every event type the API records: what it means, what causes it and the shape of its `data`. The
 * single source of the activity log's and the webhook deliveries' schemas, `GET /event-types`, the
 * test events and docs/api.md's table.
 */
export const EVENT_CATALOGUE = {
	'member.added': {
		title: 'Member Added',
		description: 'A member joined the organization.',
		causedBy:
			'`POST /orgs/{orgId}/members`; creating an organization records it for its first admin.',
		data: z.object({
			user_id: userId,
			email,
			name: described(z.string(), 'Their name.'),
			role: Role,
		}),
	},
	'member.role_changed': {
		title: 'Member Role Changed',
		description: "A member's role changed.",
		causedBy: '`PATCH /orgs/{orgId}/members/{userId}` with another role.',
		data: z.object({
			user_id: userId,
			from: described(Role, 'The role they had.'),
			to: described(Role, 'The role they have now.'),
		}),
	},
	'member.removed': {
		title: 'Member Removed',
		description: 'A member was removed; every API key of theirs was revoked with it.',
		causedBy: '`DELETE /orgs/{orgId}/members/{userId}`.',
		data: z.object({ user_id: userId, email, role: described(Role, 'The role they had.') }),
	},
	'org.closed': {
		title: 'Organization Closed',
		description:
			'The organization was closed: from then on every key of it is refused, but its webhooks still get this event.',
		causedBy: '`POST /orgs/{orgId}/close`.',
		data: z.object({
			org_id: described(Uuid, 'The organization.'),
			name: described(z.string(), 'Its name.'),
			slug: described(z.string(), 'Its slug.'),
			closed_at: described(Timestamp, 'When it was closed.'),
		}),
	},
	'session.created': {
		title: 'Session Created',
		description: 'A training session was scheduled.',
		causedBy: '`POST /sessions`.',
		data: z.object({
			...sessionFields,
			lab_version_id: described(Uuid, 'The published lab version it runs.'),
			capacity: described(z.int(), 'How many participants may join.'),
			starts_at: described(
				Timestamp.nullable(),
				'When it is to start; `null` when none was given.',
			),
		}),
	},
	'session.started': {
		title: 'Session Started',
		description: 'A scheduled session started running.',
		causedBy: '`POST /sessions/{sessionId}/start`.',
		data: z.object(sessionFields),
	},
	'session.ended': {
		title: 'Session Ended',
		description: 'A running session ended.',
		causedBy: '`POST /sessions/{sessionId}/end`.',
		data: z.object(sessionFields),
	},
	'session.deleted': {
		title: 'Session Deleted',
		description: 'A session that was not running was deleted.',
		causedBy: '`DELETE /sessions/{sessionId}`.',
		data: z.object(sessionFields),
	},
	'session.join_code_rotated': {
		title: 'Session Join Code Rotated',
		description:
			"A session's join code was replaced; the old one stopped working. The code itself is never in an event.",
		causedBy: '`POST /sessions/{sessionId}/join-code`.',
		data: z.object({ session_id: sessionFields.session_id }),
	},
	'participant.joined': {
		title: 'Participant Joined',
		description: 'A participant joined a session with its join code.',
		causedBy: '`POST /join`.',
		data: z.object({
			session_id: sessionFields.session_id,
			participant_id: described(Uuid, 'The participant.'),
			email: described(z.string(), 'Their e-mail address, lower-cased.'),
			name: described(z.string(), 'Their name.'),
		}),
	},
	'lab.created': {
		title: 'Lab Created',
		description: 'A lab was created.',
		causedBy: '`POST /labs`.',
		data: z.object({
			lab_id: versionFields.lab_id,
			name: described(z.string(), 'Its name.'),
			tier: described(z.enum(LAB_TIERS), 'Its tier: `container`, `vm` or `cluster`.'),
		}),
	},
	'lab_version.created': {
		title: 'Lab Version Created',
		description: 'A draft version of a lab was created.',
		causedBy: '`POST /labs/{labId}/versions`.',
		data: z.object(versionFields),
	},
	'lab_version.published': {
		title: 'Lab Version Published',
		description: 'A lab version was published: sessions can now run it.',
		causedBy: '`POST /labs/{labId}/versions/{versionId}/publish`.',
		data: z.object(versionFields),
	},
	'api_key.created': {
		title: 'API Key Created',
		description: 'An API key was created. The key itself is never in an event.',
		causedBy:
			'`POST /orgs/{orgId}/api-keys`; creating an organization records its first admin key.',
		data: z.object({ ...keyFields, role: described(Role, 'The role the key acts with.') }),
	},
	'api_key.revoked': {
		title: 'API Key Revoked',
		description: 'An API key was revoked: it is refused from then on.',
		causedBy:
			'`DELETE /orgs/{orgId}/api-keys/{keyId}`; removing a member revokes each of their keys.',
		data: z.object(keyFields),
	},
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
			last_status_code: described(
				z.int().nullable(),
				'HTTP status of the last answer; null if none came (timeout, connection error).',
			),
			last_error: described(z.string(), 'Why the last attempt failed.'),
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
			last_status_code: described(
				z.int().nullable(),
				'HTTP status of the last answer; null if none came (timeout, connection error).',
			),
			last_error: described(z.string(), 'Why the last attempt failed.'),
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
} satisfies Record<EventType, EventDefinition>;

/** The `data` of an event of type `T`. */
export type EventData<T extends EventType> = z.infer<(typeof EVENT_CATALOGUE)[T]['data']>;
