import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from 'better-sqlite3';
import { migrate } from './migrations.ts';

export type { Database };

/** What a WAL file keeps of its size once written from its start again. */
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

export function openDatabase(path: string): Database {
	if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
	const db = new BetterSqlite3(path);
	// WAL lets readers proceed during a write; NORMAL sync is durable against process crashes
	// (a committed transaction survives SIGKILL), trading only the last commits on power loss.
	db.pragma('journal_mode = WAL');
	db.pragma('synchronous = NORMAL');
	// Without it, a WAL that a long backlog's drain grew keeps its size on disk for good.
	db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
	db.pragma('foreign_keys = ON');
	db.pragma('busy_timeout = 5000');
	migrate(db);
	return db;
}
