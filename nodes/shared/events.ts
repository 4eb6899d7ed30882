import type { INodePropertyOptions } from 'n8n-workflow';

/** Every event type the Training Lab API emits, alphabetized by name. */
export const EVENT_TYPE_OPTIONS: INodePropertyOptions[] = [
	{ name: 'API Key Created', value: 'api_key.created' },
	{ name: 'API Key Revoked', value: 'api_key.revoked' },
	{ name: 'Lab Created', value: 'lab.created' },
	{ name: 'Lab Version Created', value: 'lab_version.created' },
	{ name: 'Lab Version Published', value: 'lab_version.published' },
	{ name: 'Member Added', value: 'member.added' },
	{ name: 'Member Removed', value: 'member.removed' },
	{ name: 'Member Role Changed', value: 'member.role_changed' },
	{ name: 'Organization Closed', value: 'org.closed' },
	{ name: 'Participant Joined', value: 'participant.joined' },
	{ name: 'Session Created', value: 'session.created' },
	{ name: 'Session Deleted', value: 'session.deleted' },
	{ name: 'Session Ended', value: 'session.ended' },
	{ name: 'Session Join Code Rotated', value: 'session.join_code_rotated' },
	{ name: 'Session Started', value: 'session.started' },
	{ name: 'Webhook Created', value: 'webhook.created' },
	{ name: 'Webhook Deleted', value: 'webhook.deleted' },
	{ name: 'Webhook Deliveries Recovered', value: 'webhook.deliveries_recovered' },
	{ name: 'Webhook Delivery Resent', value: 'webhook.delivery_resent' },
	{ name: 'Webhook Disabled', value: 'webhook.disabled' },
	{ name: 'Webhook Test Event Sent', value: 'webhook.test_sent' },
	{ name: 'Webhook Updated', value: 'webhook.updated' },
];
