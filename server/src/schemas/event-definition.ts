import { z } from 'zod';

// What every entry of the event catalogue is made of: the list of types and the shape of an entry.

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
	'webhook.held',
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

export interface EventDefinition {
	/** What the editor and the console call it. */
	title: string;
	/** What happened, in a sentence. */
	description: string;
	/** The requests (or the server's own work) that record it. */
	causedBy: string;
	/** Its `data`: every field, each described. */
	data: z.ZodObject;
}
