import { z } from 'zod';
import { Timestamp, Uuid } from './common.ts';

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
	'webhook.updated',
	'webhook.test_sent',
	'webhook.delivery_resent',
	'webhook.deliveries_recovered',
] as const;
export const EventType = z.enum(EVENT_TYPES);
export type EventType = z.infer<typeof EventType>;

export const ActivityEvent = z.object({
	id: Uuid,
	type: EventType,
	actor: z.string().meta({
		description:
			'E-mail of the user whose key caused the event; `system` for what the server does on its own (`webhook.disabled`).',
	}),
	occurred_at: Timestamp,
	data: z.record(z.string(), z.unknown()).meta({ description: 'Event-specific data.' }),
});
export type ActivityEvent = z.infer<typeof ActivityEvent>;
