import type { Database } from 'better-sqlite3';
import type { Session } from '../schemas/sessions.ts';

export type SessionRow = Session & { seq: number; org_id: string; join_code: string };
type NewSession = Omit<SessionRow, 'seq'>;
/** What a list page needs: the list item fields and the paging position. */
export type SessionListRow = Session & { seq: number };

interface ParticipantRow {
	id: string;
	session_id: string;
	email: string;
	name: string;
	joined_at: string;
}

export class SessionRepository {
	readonly #insert;
	readonly #find;
	readonly #findByJoinCode;
	readonly #page;
	readonly #setState;
	readonly #setJoinCode;
	readonly #delete;
	readonly #joinCodeTaken;

	constructor(db: Database) {
		this.#insert = db.prepare<NewSession>(
			`INSERT INTO sessions (id, org_id, lab_version_id, title, state, capacity, starts_at, join_code, created_at)
       VALUES (@id, @org_id, @lab_version_id, @title, @state, @capacity, @starts_at, @join_code, @created_at)`,
		);
		this.#find = db.prepare<[string, string], SessionRow>(
			'SELECT * FROM sessions WHERE org_id = ? AND id = ?',
		);
		this.#findByJoinCode = db.prepare<[string, string], SessionRow>(
			'SELECT * FROM sessions WHERE org_id = ? AND join_code = ?',
		);
		this.#page = db.prepare<[string, number, number], SessionListRow>(
			`SELECT seq, id, title, state, capacity, starts_at, lab_version_id, created_at
       FROM sessions WHERE org_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
		);
		this.#setState = db.prepare<[string, string]>('UPDATE sessions SET state = ? WHERE id = ?');
		this.#setJoinCode = db.prepare<[string, string]>(
			'UPDATE sessions SET join_code = ? WHERE id = ?',
		);
		this.#delete = db.prepare<[string]>('DELETE FROM sessions WHERE id = ?');
		this.#joinCodeTaken = db.prepare<[string], { one: 1 }>(
			'SELECT 1 AS one FROM sessions WHERE join_code = ?',
		);
	}

	insert(session: NewSession): void {
		this.#insert.run(session);
	}

	find(orgId: string, sessionId: string): SessionRow | undefined {
		return this.#find.get(orgId, sessionId);
	}

	findByJoinCode(orgId: string, joinCode: string): SessionRow | undefined {
		return this.#findByJoinCode.get(orgId, joinCode);
	}

	page(orgId: string, afterSeq: number, limit: number): SessionListRow[] {
		return this.#page.all(orgId, afterSeq, limit);
	}

	setState(sessionId: string, state: Session['state']): void {
		this.#setState.run(state, sessionId);
	}

	setJoinCode(sessionId: string, joinCode: string): void {
		this.#setJoinCode.run(joinCode, sessionId);
	}

	delete(sessionId: string): void {
		this.#delete.run(sessionId);
	}

	joinCodeTaken(joinCode: string): boolean {
		return this.#joinCodeTaken.get(joinCode) !== undefined;
	}
}

export class ParticipantRepository {
	readonly #insert;
	readonly #count;
	readonly #findByEmail;

	constructor(db: Database) {
		this.#insert = db.prepare<ParticipantRow>(
			`INSERT INTO participants (id, session_id, email, name, joined_at)
       VALUES (@id, @session_id, @email, @name, @joined_at)`,
		);
		this.#count = db.prepare<[string], { count: number }>(
			'SELECT count(*) AS count FROM participants WHERE session_id = ?',
		);
		this.#findByEmail = db.prepare<[string, string], ParticipantRow>(
			'SELECT id, session_id, email, name, joined_at FROM participants WHERE session_id = ? AND email = ?',
		);
	}

	insert(participant: ParticipantRow): void {
		this.#insert.run(participant);
	}

	count(sessionId: string): number {
		return this.#count.get(sessionId)?.count ?? 0;
	}

	findByEmail(sessionId: string, email: string): ParticipantRow | undefined {
		return this.#findByEmail.get(sessionId, email);
	}
}
