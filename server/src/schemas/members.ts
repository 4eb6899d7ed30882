import { z } from 'zod';
import { Email, Name, Role, Uuid } from './common.ts';

export const MemberParams = z.object({ orgId: Uuid, userId: Uuid });

export const Member = z.object({ user_id: Uuid, email: z.string(), name: z.string(), role: Role });
export type Member = z.infer<typeof Member>;

export const MemberCreate = z.object({ email: Email, name: Name, role: Role });
export type MemberCreate = z.infer<typeof MemberCreate>;

export const MemberRoleUpdate = z.object({ role: Role });
