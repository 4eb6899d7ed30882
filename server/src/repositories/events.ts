import type { Database } from 'better-sqlite3';

export interface EventRow {
	seq: number;
	id: string;
	org_id: string;
	type: string;
	actor: string;
	occurred_at: string;
	/** JSON text */
	data: string;
	/** 1 for a sample event sent to one endpoint by POST …/test, which the activity log leaves out */
	test: number;
}
type NewEvent = Omit<EventRow, 'seq'>;

export class EventRepository {
	readonly #insert;
	readonly #pageNewestFirst;

	constructor(db: Database) {
		this.#insert = db.prepare<NewEvent>(
			`INSERT INTO events (id, org_id, type, actor, occurred_at, data, test)
       VALUES (@id, @org_id, @type, @actor, @occurred_at, @data, @test)`,
		);
		this.#pageNewestFirst = db.prepare<[string, number, number], EventRow>(
			'SELECT * FROM events WHERE org_id = ? AND seq < ? AND test = 0 ORDER BY seq DESC LIMIT ?',
		);
	}

	insert(event: NewEvent): void {
		this.#insert.run(event);
	}

	pageNewestFirst(orgId: string, beforeSeq: number, limit: number): EventRow[] {
		return this.#pageNewestFirst.all(orgId, beforeSeq, limit);
	}
}
