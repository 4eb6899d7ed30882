import { z } from 'zod';
import { Role, Uuid } from './common.ts';

export const Organization = z.object({ id: Uuid, name: z.string(), slug: z.string() });
const User = z.object({ id: Uuid, email: z.string(), name: z.string() });

export const Principal = z.object({
	user: User,
	org: Organization,
	role: Role.meta({
		description: "The key's effective role: never above its user's current role.",
	}),
});
export type Principal = z.infer<typeof Principal>;
