// The worker thread behind ./checkpoints.ts: its own connection to the database, copying the WAL
// back into the database file every `intervalMs` (a PASSIVE checkpoint: it never waits for, nor
// blocks, the server's readers and writers). Its fsyncs block this thread, not the event loop.
import BetterSqlite3 from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { WriteLock } from './write-lock.ts';

export interface CheckpointWorkerData {
	path: string;
	intervalMs: number;
	/** The server's write lock (./write-lock.ts), through which the outbox's commits are paused. */
	writeLock: SharedArrayBuffer;
	/** WAL pages from which a checkpoint that commits keep outrunning ends with the outbox paused. */
	restartFromFrames: number;
}

/** Checkpoints in a row, at most, to copy a WAL that commits kept extending while it was copied. */
const MAX_ROUNDS = 10;
/** Rounds with the outbox paused: the rest, what a transaction begun added, then still. */
const PAUSED_ROUNDS = 3;

const data = workerData as CheckpointWorkerData;
const writeLock = new WriteLock(data.writeLock, false);
const db = new BetterSqlite3(data.path);
// Opening can meet a lock held a moment by the server's connection: wait for it here, on this thread.
db.pragma('busy_timeout = 5000');

interface CheckpointResult {
	log: number;
	checkpointed: number;
}

function passiveRound(): CheckpointResult {
	const [result] = db.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[];
	return result;
}

/**
 * SQLite writes the WAL again from its start only once a checkpoint has copied all of it, and a
 * checkpoint copies the frames that were there when it began: a commit landing while it copies
 * leaves the WAL unfinished, and its file grows (at 150 steps a second of the soak, one checkpoint
 * a second let it reach 30 MB in 20 minutes). So each time, rounds until one finds no frame added
 * since the last: each copies only what the few milliseconds of the one before let in.
 *
 * While the outbox drains a backlog its commits never pause, no round is ever still, and the WAL
 * grew 25 MB a second. Past `restartFromFrames`, rounds go on with the outbox paused (the write
 * lock's pausingOthers), three at most: the first copies what the rounds before left, the second
 * what a transaction begun before the pause added, the last finds the WAL still, and the next
 * commit writes it from its start again. Requests' commits do not wait; if they are what keeps the
 * WAL growing, the pause ends unfinished.
 */
function checkpoint(): void {
	const { log, still } = roundsUntilStill(MAX_ROUNDS);
	if (still || log < data.restartFromFrames) return;
	writeLock.pausingOthers(() => roundsUntilStill(PAUSED_ROUNDS));
}

/** Checkpoint rounds until one finds no frame added since the one before, at most `rounds`. */
function roundsUntilStill(rounds: number): { log: number; still: boolean } {
	let framesBefore = -1;
	for (let round = 0; round < rounds; round++) {
		const { log, checkpointed } = passiveRound();
		if (log === framesBefore && checkpointed >= log) return { log, still: true };
		framesBefore = log;
	}
	return { log: framesBefore, still: false };
}

const timer = setInterval(checkpoint, data.intervalMs);

parentPort!.once('message', () => {
	clearInterval(timer);
	db.close();
	parentPort!.close();
});
