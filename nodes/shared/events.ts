import type { INodePropertyOptions } from 'n8n-workflow';
import type { EventType } from './api';

/** What the editor calls each event type: every type the API's schema has, none other. */
const EVENT_NAMES: Record<EventType, string> = {
	'api_key.created': 'API Key Created',
	'api_key.revoked': 'API Key Revoked',
	'lab.created': 'Lab Created',
	'lab_version.created': 'Lab Version Created',
	'lab_version.published': 'Lab Version Published',
	'member.added': 'Member Added',
	'member.removed': 'Member Removed',
	'member.role_changed': 'Member Role Changed',
	'org.closed': 'Organization Closed',
	'participant.joined': 'Participant Joined',
	'session.created': 'Session Created',
	'session.deleted': 'Session Deleted',
	'session.ended': 'Session Ended',
	'session.join_code_rotated': 'Session Join Code Rotated',
	'session.started': 'Session Started',
	'webhook.created': 'Webhook Created',
	'webhook.deleted': 'Webhook Deleted',
	'webhook.deliveries_recovered': 'Webhook Deliveries Recovered',
	'webhook.delivery_resent': 'Webhook Delivery Resent',
	'webhook.disabled': 'Webhook Disabled',
	'webhook.test_sent': 'Webhook Test Event Sent',
	'webhook.updated': 'Webhook Updated',
};

/** Every event type the Training Lab API emits, alphabetized by name. */
export const EVENT_TYPE_OPTIONS: INodePropertyOptions[] = Object.entries(EVENT_NAMES)
	.map(([value, name]) => ({ name, value }))
	.sort((a, b) => a.name.localeCompare(b.name));
