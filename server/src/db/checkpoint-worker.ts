// The worker thread behind ./checkpoints.ts: its own connection to the database, copying the WAL
// back into the database file every `intervalMs` (a PASSIVE checkpoint: it never waits for, nor
// blocks, the server's readers and writers). Its fsyncs block this thread, not the event loop.
import BetterSqlite3 from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

const { path, intervalMs } = workerData as { path: string; intervalMs: number };
const db = new BetterSqlite3(path);
// Opening can meet a lock held a moment by the server's connection: wait for it here, on this thread.
db.pragma('busy_timeout = 5000');
const timer = setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), intervalMs);

parentPort!.once('message', () => {
	clearInterval(timer);
	db.close();
	parentPort!.close();
});
