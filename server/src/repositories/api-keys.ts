import type { Database } from 'better-sqlite3';
import type { Role } from '../schemas/common.ts';

export interface ApiKeyRow {
	seq: number;
	id: string;
	org_id: string;
	user_id: string;
	name: string;
	prefix: string;
	key_hash: Buffer;
	role: Role;
	created_at: string;
	revoked_at: string | null;
}

type NewApiKey = Omit<ApiKeyRow, 'seq' | 'revoked_at'>;

/** Everything authentication needs about a key, in one indexed lookup. */
interface KeyCredentialRow {
	key_id: string;
	key_hash: Buffer;
	key_role: Role;
	revoked_at: string | null;
	org_id: string;
	org_name: string;
	org_slug: string;
	org_closed_at: string | null;
	user_id: string;
	user_email: string;
	user_name: string;
	user_role: Role;
	user_removed_at: string | null;
}

export class ApiKeyRepository {
	readonly #insert;
	readonly #credentialsByPrefix;
	readonly #find;
	readonly #page;
	readonly #findActiveByName;
	readonly #revoke;
	readonly #revokeAllOfUser;

	constructor(db: Database) {
		this.#insert = db.prepare<NewApiKey>(
			`INSERT INTO api_keys (id, org_id, user_id, name, prefix, key_hash, role, created_at)
       VALUES (@id, @org_id, @user_id, @name, @prefix, @key_hash, @role, @created_at)`,
		);
		this.#credentialsByPrefix = db.prepare<[string], KeyCredentialRow>(
			`SELECT k.id AS key_id, k.key_hash, k.role AS key_role, k.revoked_at,
              o.id AS org_id, o.name AS org_name, o.slug AS org_slug, o.closed_at AS org_closed_at,
              u.id AS user_id, u.email AS user_email, u.name AS user_name, u.role AS user_role,
              u.removed_at AS user_removed_at
       FROM api_keys k JOIN orgs o ON o.id = k.org_id JOIN users u ON u.id = k.user_id
       WHERE k.prefix = ?`,
		);
		this.#find = db.prepare<[string, string], ApiKeyRow>(
			'SELECT * FROM api_keys WHERE org_id = ? AND id = ?',
		);
		this.#page = db.prepare<[string, number, number], ApiKeyRow>(
			'SELECT * FROM api_keys WHERE org_id = ? AND seq > ? ORDER BY seq LIMIT ?',
		);
		this.#findActiveByName = db.prepare<[string, string], ApiKeyRow>(
			'SELECT * FROM api_keys WHERE org_id = ? AND name = ? AND revoked_at IS NULL',
		);
		this.#revoke = db.prepare<[string, string]>(
			'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
		);
		this.#revokeAllOfUser = db.prepare<[string, string]>(
			'UPDATE api_keys SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL',
		);
	}

	insert(key: NewApiKey): void {
		this.#insert.run(key);
	}

	/** Keys sharing a prefix (in practice one); the caller compares hashes in constant time. */
	credentialsByPrefix(prefix: string): KeyCredentialRow[] {
		return this.#credentialsByPrefix.all(prefix);
	}

	find(orgId: string, keyId: string): ApiKeyRow | undefined {
		return this.#find.get(orgId, keyId);
	}

	page(orgId: string, afterSeq: number, limit: number): ApiKeyRow[] {
		return this.#page.all(orgId, afterSeq, limit);
	}

	findActiveByName(orgId: string, name: string): ApiKeyRow | undefined {
		return this.#findActiveByName.get(orgId, name);
	}

	/** Returns whether the key was active until now. */
	revoke(keyId: string, revokedAt: string): boolean {
		return this.#revoke.run(revokedAt, keyId).changes > 0;
	}

	revokeAllOfUser(userId: string, revokedAt: string): number {
		return this.#revokeAllOfUser.run(revokedAt, userId).changes;
	}
}
