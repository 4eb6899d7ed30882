import { z } from 'zod';
import { Name, Timestamp, Uuid } from './common.ts';

export const LAB_TIERS = ['container', 'vm', 'cluster'] as const;

export const LabParams = z.object({ labId: Uuid });
export const LabVersionParams = z.object({ labId: Uuid, versionId: Uuid });

export const LabCreate = z.object({ name: Name, tier: z.enum(LAB_TIERS) });
export type LabCreate = z.infer<typeof LabCreate>;

export const Lab = z.object({
	id: Uuid,
	name: z.string(),
	tier: z.enum(LAB_TIERS),
	created_at: Timestamp,
});
export type Lab = z.infer<typeof Lab>;

export const LabVersion = z.object({
	id: Uuid,
	lab_id: Uuid,
	version: z.int(),
	status: z.enum(['published', 'draft']),
	created_at: Timestamp,
	published_at: Timestamp.optional().meta({
		description: 'Present once the version is published.',
	}),
});
export type LabVersion = z.infer<typeof LabVersion>;
