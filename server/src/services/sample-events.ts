import type { EventData, EventType } from '../schemas/events.ts';
import { NOT_REGISTERED_REASON } from '../outbox/outbox.ts';

// Ids no one can take for a real resource's: the nil UUID with a version and a variant, and a count.
const sampleId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const MEMBER = sampleId(1);
const ORG = sampleId(2);
const SESSION = sampleId(3);
const PARTICIPANT = sampleId(4);
const LAB = sampleId(5);
const LAB_VERSION = sampleId(6);
const API_KEY = sampleId(7);
const WEBHOOK = sampleId(8);
const EVENT = sampleId(9);
/** The id of the example event `GET /event-types` shows. */
export const SAMPLE_EVENT_ID = sampleId(11);
const DELIVERY = sampleId(10);
const WEBHOOK_URL = 'https://example.com/hooks/training-lab';
const KEY_NAME = 'Sample key';
const KEY_PREFIX = 'tlk_SAMPLE00';

/**
 * The `data` of a test event of each type: every field a real event of that type has, with values
 * that cannot be mistaken for a real member, organization or resource (`example.com` addresses,
 * the ids above). `at` is when the test was sent, for the fields that hold a time.
 */
export function sampleEventData<T extends EventType>(type: T, at: string): EventData<T> {
	const member = { user_id: MEMBER, email: 'grace.hopper@example.com' };
	const session = { session_id: SESSION, title: 'Sample session' };
	const version = { lab_id: LAB, version_id: LAB_VERSION, version: 1 };
	const webhook = { webhook_id: WEBHOOK, url: WEBHOOK_URL };
	const samples: { [K in EventType]: EventData<K> } = {
		'member.added': { ...member, name: 'Grace Hopper (sample)', role: 'trainer' },
		'member.role_changed': { user_id: MEMBER, from: 'trainer', to: 'admin' },
		'member.removed': { ...member, role: 'trainer' },
		'org.closed': {
			org_id: ORG,
			name: 'Example Organization (sample)',
			slug: 'example-organization',
			closed_at: at,
		},
		'session.created': {
			...session,
			lab_version_id: LAB_VERSION,
			capacity: 12,
			starts_at: at,
		},
		'session.started': session,
		'session.ended': session,
		'session.deleted': session,
		'session.join_code_rotated': { session_id: SESSION },
		'participant.joined': {
			session_id: SESSION,
			participant_id: PARTICIPANT,
			email: 'participant@example.com',
			name: 'Sample Participant',
		},
		'lab.created': { lab_id: LAB, name: 'Sample lab', tier: 'container' },
		'lab_version.created': version,
		'lab_version.published': version,
		'api_key.created': { key_id: API_KEY, name: KEY_NAME, prefix: KEY_PREFIX, role: 'trainer' },
		'api_key.revoked': { key_id: API_KEY, name: KEY_NAME, prefix: KEY_PREFIX },
		'webhook.created': { ...webhook, event_types: ['member.removed'] },
		'webhook.deleted': { ...webhook, reason: null },
		'webhook.disabled': { ...webhook, reason: 'The endpoint answered 410 Gone.' },
		'webhook.delivery_exhausted': {
			...webhook,
			delivery_id: DELIVERY,
			event_id: EVENT,
			event_type: 'member.removed',
			attempts: 8,
			last_status_code: 503,
			last_error: 'HTTP 503: Service Unavailable',
		},
		'webhook.failing': {
			...webhook,
			consecutive_failures: 5,
			last_status_code: 503,
			last_error: 'HTTP 503: Service Unavailable',
		},
		'webhook.recovered': { ...webhook, failing_since: at, failed_attempts: 7 },
		'webhook.held': {
			...webhook,
			reason: NOT_REGISTERED_REASON,
			last_status_code: 404,
			last_error:
				'HTTP 404: {"code":404,"message":"The requested webhook \\"POST 7c1de2a0-5b8f-4f6e-9d3a-2b4c6e8f0a1b/webhook\\" is not registered."}',
		},
		'webhook.updated': {
			...webhook,
			changes: { event_types: { from: ['member.removed'], to: ['member.removed', 'org.closed'] } },
		},
		'webhook.secret_rotated': { ...webhook, previous_secret_expires_at: at },
		'webhook.test_sent': {
			...webhook,
			event_type: 'member.removed',
			event_id: EVENT,
			delivery_id: DELIVERY,
		},
		'webhook.delivery_resent': {
			...webhook,
			delivery_id: DELIVERY,
			event_id: EVENT,
			event_type: 'member.removed',
			resend: 1,
		},
		'webhook.deliveries_recovered': { ...webhook, since: at, queued: 3 },
	};
	return samples[type];
}
