import type { Database } from 'better-sqlite3';

/**
 * Runs `work` in one write transaction (BEGIN IMMEDIATE, so a second writer waits instead of
 * failing to upgrade later). Nested calls become savepoints of the outer transaction.
 */
export function inTransaction<T>(db: Database, work: () => T): T {
	return db.transaction(work).immediate();
}
