import { z } from 'zod';
import { Role, Timestamp, Uuid } from './common.ts';
import { LAB_TIERS } from './labs.ts';
import { described, EVENT_TYPES, EventType, type EventDefinition } from './event-definition.ts';
import { WEBHOOK_EVENTS } from './webhook-event-catalogue.ts';

// The list of types and the entries' shape live in event-definition.ts, the webhook events in
// webhook-event-catalogue.ts; this module puts the catalogue together.
export { described, EVENT_TYPES, EventType };

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
	...WEBHOOK_EVENTS,
} satisfies Record<EventType, EventDefinition>;

/** The `data` of an event of type `T`. */
export type EventData<T extends EventType> = z.infer<(typeof EVENT_CATALOGUE)[T]['data']>;
