import type { Database } from 'better-sqlite3';
import type { Repositories } from '../repositories/index.ts';
import type { EventLog } from './event-log.ts';
import { inTransaction } from './transaction.ts';

export interface ServiceDeps {
  db: Database;
  repos: Repositories;
  events: EventLog;
}

/** What every domain service works with: the repositories, the activity log and write transactions. */
export abstract class DomainService {
  protected readonly repos: Repositories;
  protected readonly events: EventLog;
  readonly #db: Database;

  constructor(deps: ServiceDeps) {
    this.#db = deps.db;
    this.repos = deps.repos;
    this.events = deps.events;
  }

  /** Runs a change and its activity event in one write transaction (a savepoint when nested). */
  protected transaction<T>(work: () => T): T {
    return inTransaction(this.#db, work);
  }
}
