import { Worker } from 'node:worker_threads';
import type { Logger } from '../core/logger.ts';
import type { CheckpointWorkerData } from './checkpoint-worker.ts';
import type { Database } from './connection.ts';
import type { WriteLock } from './write-lock.ts';

/** SQLite's own threshold for a checkpoint on commit, in WAL pages (~4 MB). */
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000;
export const CHECKPOINT_INTERVAL_MS = 1000;
/** WAL pages (16 MiB) past which a checkpoint pauses the outbox (./checkpoint-worker.ts). */
export const RESTART_FROM_FRAMES = 4096;

export interface CheckpointOptions {
	/** The write lock the server's threads take turns with (./write-lock.ts). */
	writeLock: WriteLock;
	intervalMs?: number;
	restartFromFrames?: number;
}

export interface Checkpoints {
	/** Stops the worker once its checkpoint in progress is done (before the database is closed). */
	stop(): Promise<void>;
}

/**
 * Moves SQLite's WAL checkpoints off the event loop, onto the worker thread at `workerUrl`
 * (./checkpoint-worker.ts). By default SQLite checkpoints inside the commit that fills the WAL past
 * 1000 pages, on the thread that commits, and a checkpoint ends with an fsync: when the disk stalls
 * (measured on a cloud VM: a 1.5 s stall with the main thread asleep and the machine waiting on its
 * disk, docs/performance.md) every request stalls with it. The main connection then never
 * checkpoints; if the worker fails, it logs why and SQLite's own checkpoints come back.
 */
export function checkpointOffThread(
	db: Database,
	workerUrl: URL,
	logger: Logger,
	{
		writeLock,
		intervalMs = CHECKPOINT_INTERVAL_MS,
		restartFromFrames = RESTART_FROM_FRAMES,
	}: CheckpointOptions,
): Checkpoints {
	db.pragma('wal_autocheckpoint = 0');
	const workerData: CheckpointWorkerData = {
		path: db.name,
		intervalMs,
		writeLock: writeLock.buffer,
		restartFromFrames,
	};
	const worker = new Worker(workerUrl, { workerData });
	// Read now: once the thread has ended its id reads -1.
	const workerThreadId = worker.threadId;
	worker.unref();
	let stopping = false;
	let fellBack = false;
	const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
	worker.once('exit', () => writeLock.releaseFor(workerThreadId));
	const fallBack = (error: unknown) => {
		if (stopping || fellBack || !db.open) return;
		fellBack = true;
		logger.error('WAL checkpoints are back on the main thread: their worker failed', error);
		db.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`);
	};
	worker.on('error', fallBack);
	worker.once('exit', (code) => fallBack(new Error(`the worker exited with code ${code}`)));
	return {
		async stop() {
			stopping = true;
			// Unreferenced, the worker would not keep the process alive long enough to close.
			worker.ref();
			worker.postMessage('stop');
			await exited;
		},
	};
}
