import type { Database } from 'better-sqlite3';
import { isoAt, type Clock } from '../core/clock.ts';
import type { Repositories } from '../repositories/index.ts';
import type { EventLog } from './event-log.ts';
import { inTransaction } from '../db/transaction.ts';
import { newResourceId } from '../lib/resource-id.ts';
import type { OutboxNotice } from '../outbox/notice.ts';

export interface ServiceDeps {
	db: Database;
	repos: Repositories;
	events: EventLog;
	/** Told when a change made deliveries due beyond those of its activity event (a resend, a release). */
	outbox: OutboxNotice;
	clock: Clock;
}

/** What every domain service works with: the repositories, the activity log and write transactions. */
export abstract class DomainService {
	protected readonly repos: Repositories;
	protected readonly events: EventLog;
	protected readonly outbox: OutboxNotice;
	protected readonly clock: Clock;
	readonly #db: Database;

	constructor(deps: ServiceDeps) {
		this.#db = deps.db;
		this.repos = deps.repos;
		this.events = deps.events;
		this.outbox = deps.outbox;
		this.clock = deps.clock;
	}

	/** The clock's current time as an API timestamp. */
	protected nowIso(): string {
		return isoAt(this.clock.now());
	}

	/** A new resource id, in the order of the clock's time. */
	protected newId(): string {
		return newResourceId(this.clock.now());
	}

	/** Runs a change and its activity event in one write transaction (a savepoint when nested). */
	protected transaction<T>(work: () => T): T {
		return inTransaction(this.#db, work);
	}
}
