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
	/** W3C trace context of the span that recorded it (null before traces were kept). */
	trace_parent: string | null;
	trace_state: string | null;
}
type NewEvent = Omit<EventRow, 'seq'>;

/** Which events a page holds: some types only (all when absent), within `[since, until)`. */
export interface EventFilter {
	types?: readonly string[];
	since?: string;
	until?: string;
}

const WITHIN = 'occurred_at >= @since AND occurred_at < @until';

interface AfterParams {
	orgId: string;
	after: number;
	limit: number;
	[type: `type${number}`]: string;
}

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
	readonly #pageOldestFirst;
	readonly #newest;
	readonly #bySeqs;
	readonly #findInOrg;
	readonly #lastBefore;
	/** By how many types they filter on. */
	readonly #pagesOfTypes = new Map<number, Statement<FilterParams, EventRow>>();
	readonly #oldestPagesOfTypes = new Map<number, Statement<AfterParams, EventRow>>();

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
			`INSERT INTO events (id, org_id, type, actor, occurred_at, data, test, trace_parent, trace_state)
       VALUES (@id, @org_id, @type, @actor, @occurred_at, @data, @test, @trace_parent, @trace_state)`,
		);
		this.#pageNewestFirst = db.prepare<[string, number, number], EventRow>(
			'SELECT * FROM events WHERE org_id = ? AND seq < ? AND test = 0 ORDER BY seq DESC LIMIT ?',
		);
		this.#pageNewestFirstWithin = db.prepare<FilterParams, EventRow>(
			`SELECT * FROM events WHERE org_id = @orgId AND seq < @before AND test = 0 AND ${WITHIN}
       ORDER BY seq DESC LIMIT @limit`,
		);
		this.#pageOldestFirst = db.prepare<[string, number, number], EventRow>(
			'SELECT * FROM events WHERE org_id = ? AND seq > ? AND test = 0 ORDER BY seq LIMIT ?',
		);
		this.#newest = db.prepare<[string], EventRow>(
			'SELECT * FROM events WHERE org_id = ? AND test = 0 ORDER BY seq DESC LIMIT 1',
		);
		this.#bySeqs = db.prepare<[string], EventRow>(
			'SELECT * FROM events WHERE seq IN (SELECT value FROM json_each(?)) ORDER BY seq',
		);
		this.#findInOrg = db.prepare<[string, string], EventRow>(
			'SELECT * FROM events WHERE org_id = ? AND id = ? AND test = 0',
		);
		this.#lastBefore = db.prepare<[string, string], EventRow>(
			'SELECT * FROM events WHERE org_id = ? AND occurred_at < ? AND test = 0 ORDER BY seq DESC LIMIT 1',
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
		const where = `seq < @before AND ${WITHIN}`;
		const statement = this.#ofTypes(this.#pagesOfTypes, types.length, where, 'DESC');
		return statement.all({ ...params, ...typeParams(types) });
	}

	/** The organization's events after the seq `afterSeq`, oldest first, of some types (all when absent); test events left out. */
	pageOldestFirst(
		orgId: string,
		afterSeq: number,
		limit: number,
		types?: readonly string[],
	): EventRow[] {
		if (!types) return this.#pageOldestFirst.all(orgId, afterSeq, limit);
		const statement = this.#ofTypes(this.#oldestPagesOfTypes, types.length, 'seq > @after', 'ASC');
		return statement.all({ orgId, after: afterSeq, limit, ...typeParams(types) });
	}

	/** The organization's newest event. */
	newest(orgId: string): EventRow | undefined {
		return this.#newest.get(orgId);
	}

	/** The events of these seqs that are still kept, oldest first. */
	bySeqs(seqs: readonly number[]): EventRow[] {
		return this.#bySeqs.all(JSON.stringify(seqs));
	}

	/** One of the organization's events (not a test event). */
	find(orgId: string, id: string): EventRow | undefined {
		return this.#findInOrg.get(orgId, id);
	}

	/** The organization's newest event that occurred before `time` (not a test event). */
	lastBefore(orgId: string, time: string): EventRow | undefined {
		return this.#lastBefore.get(orgId, time);
	}

	/**
	 * The first `limit` events in `order` of seq among `count` types: the first `limit` of each type,
	 * read from its own range of events_by_org_type, merged. A rare type costs as little as a common
	 * one; scanning the organization's log for it would read all of it.
	 */
	#ofTypes<P extends object>(
		cache: Map<number, Statement<P, EventRow>>,
		count: number,
		where: string,
		order: 'ASC' | 'DESC',
	): Statement<P, EventRow> {
		let statement = cache.get(count);
		if (!statement) {
			const ofType = (i: number) =>
				`SELECT * FROM (SELECT * FROM events WHERE org_id = @orgId AND type = @type${i} AND ${where}
           AND test = 0 ORDER BY seq ${order} LIMIT @limit)`;
			const sql = `${Array.from({ length: count }, (_, i) => ofType(i)).join(' UNION ALL ')}
         ORDER BY seq ${order} LIMIT @limit`;
			statement = this.#db.prepare<P, EventRow>(sql);
			cache.set(count, statement);
		}
		return statement;
	}
}

/** `type0`, `type1`, …: the parameters of a filter on these types. */
function typeParams(types: readonly string[]): Record<`type${number}`, string> {
	return Object.fromEntries(types.map((type, i) => [`type${i}`, type]));
}
