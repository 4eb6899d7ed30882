import type { Database } from 'better-sqlite3';

interface IdempotencyRow {
	org_id: string;
	route: string;
	key: string;
	fingerprint: string;
	status: number;
	/** JSON text of the response body, null for an empty body */
	body: string | null;
	/** Unix milliseconds */
	created_at: number;
}

export class IdempotencyRepository {
	readonly #find;
	readonly #insert;
	readonly #deleteOlderThan;

	constructor(db: Database) {
		this.#find = db.prepare<[string, string, string, number], IdempotencyRow>(
			'SELECT * FROM idempotency_keys WHERE org_id = ? AND route = ? AND key = ? AND created_at > ?',
		);
		this.#insert = db.prepare<IdempotencyRow>(
			`INSERT OR REPLACE INTO idempotency_keys (org_id, route, key, fingerprint, status, body, created_at)
       VALUES (@org_id, @route, @key, @fingerprint, @status, @body, @created_at)`,
		);
		this.#deleteOlderThan = db.prepare<[number]>(
			'DELETE FROM idempotency_keys WHERE created_at <= ?',
		);
	}

	findSince(orgId: string, route: string, key: string, since: number): IdempotencyRow | undefined {
		return this.#find.get(orgId, route, key, since);
	}

	/** Replaces an expired record with the same key. */
	save(row: IdempotencyRow): void {
		this.#insert.run(row);
	}

	deleteOlderThan(cutoff: number): number {
		return this.#deleteOlderThan.run(cutoff).changes;
	}
}
