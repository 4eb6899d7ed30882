import type { Database } from 'better-sqlite3';
import type { Role } from '../schemas/common.ts';

export interface UserRow {
	seq: number;
	id: string;
	org_id: string;
	email: string;
	name: string;
	role: Role;
	created_at: string;
	removed_at: string | null;
}

type NewUser = Omit<UserRow, 'seq' | 'removed_at'>;

/** Members of organizations. Only active (not removed) members are ever returned. */
export class UserRepository {
	readonly #insert;
	readonly #findActive;
	readonly #findActiveByEmail;
	readonly #pageActive;
	readonly #countAdmins;
	readonly #updateRole;
	readonly #markRemoved;

	constructor(db: Database) {
		this.#insert = db.prepare<NewUser>(
			`INSERT INTO users (id, org_id, email, name, role, created_at)
       VALUES (@id, @org_id, @email, @name, @role, @created_at)`,
		);
		this.#findActive = db.prepare<[string, string], UserRow>(
			'SELECT * FROM users WHERE org_id = ? AND id = ? AND removed_at IS NULL',
		);
		this.#findActiveByEmail = db.prepare<[string, string], UserRow>(
			'SELECT * FROM users WHERE org_id = ? AND email = ? AND removed_at IS NULL',
		);
		this.#pageActive = db.prepare<[string, number, number], UserRow>(
			`SELECT * FROM users WHERE org_id = ? AND removed_at IS NULL AND seq > ? ORDER BY seq LIMIT ?`,
		);
		this.#countAdmins = db.prepare<[string], { count: number }>(
			`SELECT count(*) AS count FROM users WHERE org_id = ? AND role = 'admin' AND removed_at IS NULL`,
		);
		this.#updateRole = db.prepare<[Role, string]>('UPDATE users SET role = ? WHERE id = ?');
		this.#markRemoved = db.prepare<[string, string]>(
			'UPDATE users SET removed_at = ? WHERE id = ?',
		);
	}

	insert(user: NewUser): void {
		this.#insert.run(user);
	}

	findActive(orgId: string, userId: string): UserRow | undefined {
		return this.#findActive.get(orgId, userId);
	}

	findActiveByEmail(orgId: string, email: string): UserRow | undefined {
		return this.#findActiveByEmail.get(orgId, email);
	}

	pageActive(orgId: string, afterSeq: number, limit: number): UserRow[] {
		return this.#pageActive.all(orgId, afterSeq, limit);
	}

	countAdmins(orgId: string): number {
		return this.#countAdmins.get(orgId)?.count ?? 0;
	}

	updateRole(userId: string, role: Role): void {
		this.#updateRole.run(role, userId);
	}

	markRemoved(userId: string, removedAt: string): void {
		this.#markRemoved.run(removedAt, userId);
	}
}
