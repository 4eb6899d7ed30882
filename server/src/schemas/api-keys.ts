import { z } from 'zod';
import { Name, Role, Timestamp, Uuid } from './common.ts';

export const ApiKeyParams = z.object({ orgId: Uuid, keyId: Uuid });

export const ApiKeyCreate = z.object({ name: Name, role: Role });
export type ApiKeyCreate = z.infer<typeof ApiKeyCreate>;

export const ApiKey = z.object({
	id: Uuid,
	name: z.string(),
	prefix: z.string().meta({ description: 'First 12 characters of the key, for recognising it.' }),
	role: Role,
	created_at: Timestamp,
	revoked_at: Timestamp.nullable(),
});
export type ApiKey = z.infer<typeof ApiKey>;

export const ApiKeyCreated = ApiKey.extend({
	key: z.string().meta({ description: 'The full key. Shown once, in this response only.' }),
});
export type ApiKeyCreated = z.infer<typeof ApiKeyCreated>;
