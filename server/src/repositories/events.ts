import type { Database, Statement } from 'better-sqlite3';
import { AFTER_ALL_TIMES, BEFORE_ALL_TIMES } from '../core/clock.ts';
import { retentionStep, type RetentionStep } from './retention-step.ts';

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

/** Which events a page holds: some types only (all when absent), within `[since, until)`. */
export interface EventFilter {
	types?: readonly string[];
	since?: string;
	until?: string;
}

const WITHIN = 'occurred_at >= @since AND occurred_at < @until';

interface FilterParams {
	orgId: string;
	before: number;
	limit: number;
	since: string;
	until: string;
	/** `type0`, `type1`, …: one per type filtered on. */
	[type: `type${number}`]: string;
}

export class EventRepository {
	readonly #insert;
	readonly #pageNewestFirst;
	readonly #pageNewestFirstWithin;
	readonly #oldestAfter;
	readonly #deleteUnreferenced;
	readonly #db: Database;
	/** By how many types they filter on. */
	readonly #pagesOfTypes = new Map<number, Statement<FilterParams, EventRow>>();

	constructor(db: Database) {
		this.#oldestAfter = db.prepare<
			{ after: number; limit: number },
			{ seq: number; occurred_at: string }
		>('SELECT seq, occurred_at FROM events WHERE seq > @after ORDER BY seq LIMIT @limit');
		this.#deleteUnreferenced = db.prepare<[string]>(
			`DELETE FROM events WHERE seq IN (SELECT value FROM json_each(?))
       AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id)`,
		);
		this.#insert = db.prepare<NewEvent>(
			`INSERT INTO events (id, org_id, type, actor, occurred_at, data, test)
       VALUES (@id, @org_id, @type, @actor, @occurred_at, @data, @test)`,
		);
		this.#pageNewestFirst = db.prepare<[string, number, number], EventRow>(
			'SELECT * FROM events WHERE org_id = ? AND seq < ? AND test = 0 ORDER BY seq DESC LIMIT ?',
		);
		this.#pageNewestFirstWithin = db.prepare<FilterParams, EventRow>(
			`SELECT * FROM events WHERE org_id = @orgId AND seq < @before AND test = 0 AND ${WITHIN}
       ORDER BY seq DESC LIMIT @limit`,
		);
		this.#db = db;
	}

	/**
	 * One step of the retention: of the `limit` oldest events after `after` (by seq, which follows
	 * their time), deletes those before `cutoff` that no delivery refers to any more. `next`: where
	 * the next step starts, or null once an event at or after `cutoff` was reached. Call inside a
	 * transaction.
	 */
	pruneBefore(after: number, cutoff: string, limit: number): RetentionStep {
		return retentionStep(
			this.#oldestAfter.all({ after, limit }),
			cutoff,
			limit,
			(old) => this.#deleteUnreferenced.run(JSON.stringify(old.map((row) => row.seq))).changes,
		);
	}

	insert(event: NewEvent): void {
		this.#insert.run(event);
	}

	pageNewestFirst(
		orgId: string,
		beforeSeq: number,
		limit: number,
		filter: EventFilter = {},
	): EventRow[] {
		const { types, since, until } = filter;
		if (!types && since === undefined && until === undefined)
			return this.#pageNewestFirst.all(orgId, beforeSeq, limit);
		const params: FilterParams = {
			orgId,
			before: beforeSeq,
			limit,
			since: since ?? BEFORE_ALL_TIMES,
			until: until ?? AFTER_ALL_TIMES,
		};
		if (!types) return this.#pageNewestFirstWithin.all(params);
		return this.#pageOfTypes(types.length).all({
			...params,
			...Object.fromEntries(types.map((type, i) => [`type${i}`, type])),
		});
	}

	/**
	 * Newest first among `count` types: the newest `limit` of each type, read from its own range of
	 * events_by_org_type, merged. A rare type costs as little as a common one; scanning the
	 * organization's log for it would read all of it.
	 */
	#pageOfTypes(count: number): Statement<FilterParams, EventRow> {
		let statement = this.#pagesOfTypes.get(count);
		if (!statement) {
			const ofType = (i: number) =>
				`SELECT * FROM (SELECT * FROM events WHERE org_id = @orgId AND type = @type${i} AND seq < @before
           AND test = 0 AND ${WITHIN} ORDER BY seq DESC LIMIT @limit)`;
			const sql = `${Array.from({ length: count }, (_, i) => ofType(i)).join(' UNION ALL ')}
         ORDER BY seq DESC LIMIT @limit`;
			statement = this.#db.prepare<FilterParams, EventRow>(sql);
			this.#pagesOfTypes.set(count, statement);
		}
		return statement;
	}
}
