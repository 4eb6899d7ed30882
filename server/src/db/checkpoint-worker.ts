// The worker thread behind ./checkpoints.ts: its own connection to the database, copying the WAL
// back into the database file every `intervalMs` (a PASSIVE checkpoint: it never waits for, nor
// blocks, the server's readers and writers). Its fsyncs block this thread, not the event loop.
import BetterSqlite3 from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

/** Checkpoints in a row, at most, to copy a WAL that commits kept extending while it was copied. */
const MAX_ROUNDS = 10;

const { path, intervalMs } = workerData as { path: string; intervalMs: number };
const db = new BetterSqlite3(path);
// Opening can meet a lock held a moment by the server's connection: wait for it here, on this thread.
db.pragma('busy_timeout = 5000');

/**
 * SQLite writes the WAL again from its start only once a checkpoint has copied all of it, and a
 * checkpoint copies the frames that were there when it began: a commit landing while it copies
 * leaves the WAL unfinished, and its file grows (at 150 steps a second of the soak, one checkpoint
 * a second let it reach 30 MB in 20 minutes). So each time, rounds until one finds no frame added
 * since the last: each copies only what the few milliseconds of the one before let in.
 */
function checkpoint(): void {
	let framesBefore = -1;
	for (let round = 0; round < MAX_ROUNDS; round++) {
		const [{ log, checkpointed }] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{
			log: number;
			checkpointed: number;
		}>;
		if (log === framesBefore && checkpointed >= log) return;
		framesBefore = log;
	}
}

const timer = setInterval(checkpoint, intervalMs);

parentPort!.once('message', () => {
	clearInterval(timer);
	db.close();
	parentPort!.close();
});
