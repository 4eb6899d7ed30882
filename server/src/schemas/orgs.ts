import { z } from 'zod';
import { Timestamp, Uuid } from './common.ts';

export const OrgParams = z.object({ orgId: Uuid });

export const ClosedOrg = z.object({
	id: Uuid,
	name: z.string(),
	slug: z.string(),
	closed_at: Timestamp,
});
export type ClosedOrg = z.infer<typeof ClosedOrg>;
