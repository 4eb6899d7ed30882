import type { INodePropertyOptions } from 'n8n-workflow';
import type { EventType } from './api';

/**
 * Each event type as the editor shows it: the title and description the API gives it
 * (`GET /event-types`), without Markdown and the final period, as n8n writes option descriptions.
 * test/nodes/event-types.test.ts holds them to the API's; the record's type, to its list of types.
 */
const EVENT_TYPES: Record<EventType, { name: string; description: string }> = {
	'api_key.created': {
		name: 'API Key Created',
		description: 'An API key was created. The key itself is never in an event',
	},
	'api_key.revoked': {
		name: 'API Key Revoked',
		description: 'An API key was revoked: it is refused from then on',
	},
	'lab.created': {
		name: 'Lab Created',
		description: 'A lab was created',
	},
	'lab_version.created': {
		name: 'Lab Version Created',
		description: 'A draft version of a lab was created',
	},
	'lab_version.published': {
		name: 'Lab Version Published',
		description: 'A lab version was published: sessions can now run it',
	},
	'member.added': {
		name: 'Member Added',
		description: 'A member joined the organization',
	},
	'member.removed': {
		name: 'Member Removed',
		description: 'A member was removed; every API key of theirs was revoked with it',
	},
	'member.role_changed': {
		name: 'Member Role Changed',
		description: "A member's role changed",
	},
	'org.closed': {
		name: 'Organization Closed',
		description:
			'The organization was closed: from then on every key of it is refused, but its webhooks still get this event',
	},
	'participant.joined': {
		name: 'Participant Joined',
		description: 'A participant joined a session with its join code',
	},
	'session.created': {
		name: 'Session Created',
		description: 'A training session was scheduled',
	},
	'session.deleted': {
		name: 'Session Deleted',
		description: 'A session that was not running was deleted',
	},
	'session.ended': {
		name: 'Session Ended',
		description: 'A running session ended',
	},
	'session.join_code_rotated': {
		name: 'Session Join Code Rotated',
		description:
			"A session's join code was replaced; the old one stopped working. The code itself is never in an event",
	},
	'session.started': {
		name: 'Session Started',
		description: 'A scheduled session started running',
	},
	'webhook.created': {
		name: 'Webhook Created',
		description: 'A webhook endpoint was registered. Its secret is never in an event',
	},
	'webhook.deleted': {
		name: 'Webhook Deleted',
		description: 'A webhook endpoint was deleted, with its deliveries',
	},
	'webhook.deliveries_recovered': {
		name: 'Webhook Deliveries Recovered',
		description: 'The given-up deliveries of an endpoint were queued again',
	},
	'webhook.delivery_resent': {
		name: 'Webhook Delivery Resent',
		description: 'A delivery was queued to be sent again',
	},
	'webhook.delivery_exhausted': {
		name: 'Webhook Delivery Exhausted',
		description:
			'A delivery gave up: every attempt of its retry schedule failed, and nothing more is sent unless a person resends or recovers it',
	},
	'webhook.disabled': {
		name: 'Webhook Disabled',
		description:
			'The server disabled a webhook endpoint; it is sent nothing until a person enables it',
	},
	'webhook.failing': {
		name: 'Webhook Failing',
		description:
			"A webhook endpoint's attempts keep failing: 5 in a row, none delivered between. Recorded once an incident; webhook.recovered ends it",
	},
	'webhook.held': {
		name: 'Webhook Held',
		description:
			"The server held a webhook endpoint: n8n answered that its workflow's webhook is not registered. Its deliveries are kept, each attempt using up no retry, until the workflow is activated again and its trigger releases the endpoint",
	},
	'webhook.recovered': {
		name: 'Webhook Recovered',
		description: 'A failing webhook endpoint answered again: a delivery succeeded',
	},
	'webhook.secret_rotated': {
		name: 'Webhook Secret Rotated',
		description:
			"A webhook endpoint's signing secret was replaced. Neither secret is ever in an event",
	},
	'webhook.test_sent': {
		name: 'Webhook Test Event Sent',
		description: 'A test event was queued for one endpoint',
	},
	'webhook.updated': {
		name: 'Webhook Updated',
		description: 'A webhook endpoint was changed: each changed field from and to',
	},
};

/** Every event type the Training Lab API emits, alphabetized by name. */
export const EVENT_TYPE_OPTIONS: INodePropertyOptions[] = Object.entries(EVENT_TYPES)
	.map(([value, { name, description }]) => ({ name, value, description }))
	.sort((a, b) => a.name.localeCompare(b.name));
