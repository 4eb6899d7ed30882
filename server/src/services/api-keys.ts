import { ApiError, notFound } from '../core/errors.ts';
import {
	generateApiKey,
	hashApiKey,
	hashesEqual,
	isWellFormedApiKey,
	keyPrefix,
} from '../lib/api-key.ts';
import type { ApiKeyRow } from '../repositories/api-keys.ts';
import { pageOf, type Page, type PageRequest } from '../core/paging.ts';
import type { ApiKey, ApiKeyCreate, ApiKeyCreated } from '../schemas/api-keys.ts';
import type { Actor, Caller } from '../core/actor.ts';
import { DomainService } from './domain-service.ts';

export class ApiKeyService extends DomainService {
	/**
	 * The caller a key belongs to, or null for any key that must be refused: malformed, unknown,
	 * revoked, of a removed member or of a closed organization. Read on every request, never cached,
	 * so a revocation takes effect at once.
	 */
	authenticate(key: string): Caller | null {
		if (!isWellFormedApiKey(key)) return null;
		const hash = hashApiKey(key);
		const row = this.repos.apiKeys
			.credentialsByPrefix(keyPrefix(key))
			.find((candidate) => hashesEqual(candidate.key_hash, hash));
		if (
			!row ||
			row.revoked_at !== null ||
			row.user_removed_at !== null ||
			row.org_closed_at !== null
		)
			return null;
		return {
			keyId: row.key_id,
			user: { id: row.user_id, email: row.user_email, name: row.user_name },
			org: { id: row.org_id, name: row.org_name, slug: row.org_slug },
			// A key never acts above its user: an admin key of a user who is now a trainer acts as trainer.
			role: row.key_role === 'admin' && row.user_role === 'admin' ? 'admin' : 'trainer',
		};
	}

	list(orgId: string, page: PageRequest): Page<ApiKey> {
		return pageOf(
			page,
			'ascending',
			(after, limit) => this.repos.apiKeys.page(orgId, after, limit),
			toApiKey,
		);
	}

	/** Creates a key owned by the acting user. The full key exists only in the returned object. */
	create(actor: Actor, input: ApiKeyCreate): ApiKeyCreated {
		return this.transaction(() => {
			if (this.repos.apiKeys.findActiveByName(actor.orgId, input.name)) {
				throw new ApiError('name_taken', `An active API key named "${input.name}" already exists.`);
			}
			const key = generateApiKey();
			const row = {
				id: this.newId(),
				org_id: actor.orgId,
				user_id: actor.userId,
				name: input.name,
				prefix: keyPrefix(key),
				key_hash: hashApiKey(key),
				role: input.role,
				created_at: this.nowIso(),
			};
			this.repos.apiKeys.insert(row);
			const created = toApiKey({ ...row, seq: 0, revoked_at: null });
			this.events.record(actor, 'api_key.created', {
				key_id: created.id,
				name: created.name,
				prefix: created.prefix,
				role: created.role,
			});
			return { ...created, key };
		});
	}

	/** Revokes a key; revoking an already revoked key changes nothing and is not an error. */
	revoke(actor: Actor, keyId: string): void {
		this.transaction(() => {
			const key = this.repos.apiKeys.find(actor.orgId, keyId);
			if (!key) throw notFound('API key');
			if (this.repos.apiKeys.revoke(key.id, this.nowIso())) {
				this.events.record(actor, 'api_key.revoked', {
					key_id: key.id,
					name: key.name,
					prefix: key.prefix,
				});
			}
		});
	}
}

function toApiKey(row: ApiKeyRow): ApiKey {
	return {
		id: row.id,
		name: row.name,
		prefix: row.prefix,
		role: row.role,
		created_at: row.created_at,
		revoked_at: row.revoked_at,
	};
}
