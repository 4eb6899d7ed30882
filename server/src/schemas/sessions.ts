import { z } from 'zod';
import { BOUNDS } from './bounds.ts';
import { Email, Name, Timestamp, TimestampInput, Uuid } from './common.ts';
import { JOIN_CODE_LENGTH } from '../lib/join-code.ts';

const SESSION_STATES = ['scheduled', 'running', 'ended'] as const;

export const SessionParams = z.object({ sessionId: Uuid });

export const SessionCreate = z.object({
	title: Name,
	lab_version_id: Uuid.meta({ description: 'A published version of a lab of your organization.' }),
	capacity: z.int().min(BOUNDS.capacity.min).max(BOUNDS.capacity.max),
	starts_at: TimestampInput.nullish(),
});
export type SessionCreate = z.infer<typeof SessionCreate>;

export const Session = z.object({
	id: Uuid,
	title: z.string(),
	state: z.enum(SESSION_STATES),
	capacity: z.int(),
	starts_at: Timestamp.nullable(),
	lab_version_id: Uuid,
	created_at: Timestamp,
});
export type Session = z.infer<typeof Session>;

export const SessionDetail = Session.extend({
	participants: z.int().meta({ description: 'Current number of participants.' }),
});
export type SessionDetail = z.infer<typeof SessionDetail>;

export const JoinCode = z.object({
	join_code: z
		.string()
		.meta({ description: `${JOIN_CODE_LENGTH} characters; the previous code stops working.` }),
});

export const JoinRequest = z.object({
	join_code: z
		.string()
		.trim()
		.toUpperCase()
		.length(JOIN_CODE_LENGTH)
		.meta({ description: 'Join code of the session (case-insensitive).' }),
	email: Email,
	name: Name,
});
export type JoinRequest = z.infer<typeof JoinRequest>;

export const Participant = z.object({
	id: Uuid,
	email: z.string(),
	name: z.string(),
	joined_at: Timestamp,
});
export const JoinResult = z.object({ session_id: Uuid, participant: Participant });
export type JoinResult = z.infer<typeof JoinResult>;
