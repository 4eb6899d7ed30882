import type { Database } from 'better-sqlite3';
import type { WriteLock } from './write-lock.ts';

/** The lock a connection's write transactions take, where several threads write (./write-lock.ts). */
const writeLocks = new WeakMap<Database, WriteLock>();

/** From now on, `db`'s write transactions take `lock` first, in turn with the server's other threads. */
export function takeTurnsWriting(db: Database, lock: WriteLock): void {
	writeLocks.set(db, lock);
}

/**
 * Runs `work` in one write transaction (BEGIN IMMEDIATE, so a second writer waits instead of
 * failing to upgrade later). Nested calls become savepoints of the outer transaction.
 */
export function inTransaction<T>(db: Database, work: () => T): T {
	const lock = db.inTransaction ? undefined : writeLocks.get(db);
	const held = lock?.acquire() ?? false;
	try {
		return db.transaction(work).immediate();
	} finally {
		if (held) lock!.release();
	}
}
