import { threadId } from 'node:worker_threads';

/** Slots of the shared buffer. */
const HOLDER = 0; // 0: free; else the holding thread's id + 1
const REQUEST_WAITING = 1; // 1 while the thread answering requests waits for the lock
const PAUSED_BY = 2; // 0, or the id + 1 of the thread keeping the others but requests' out

/** How long a wait lasts before the holder is looked at again (a thread may die holding it). */
const WAIT_SLICE_MS = 50;
/** Past this, the request thread writes without the lock (SQLite's own lock still holds). */
const GIVE_UP_MS = 2_000;

/**
 * One write transaction at a time across the server's threads, the request thread first. SQLite
 * lets one writer in at a time, but not in turn: a connection that finds the database locked
 * sleeps 1, 2, 5… 100 ms between tries, blocking its thread, and another that writes back to back
 * keeps it out for seconds (measured: the outbox thread recovering 100,000 deliveries held the
 * request thread's recover request for 2 s). With this lock, the request thread waits only for the
 * transaction the outbox thread is in, and the outbox thread starts none while the request thread
 * waits. It lives in shared memory that every thread of the server is given.
 *
 * A thread can also keep the others but the request thread from writing for a while
 * (`pausingOthers`): the checkpoint thread does, to copy a WAL that the outbox's commits never
 * leave still (./checkpoint-worker.ts).
 */
export class WriteLock {
	readonly buffer: SharedArrayBuffer;
	readonly #slots: Int32Array;
	/** Whether this thread answers requests (it goes first). */
	readonly #requestThread: boolean;
	readonly #me = threadId + 1;

	constructor(buffer = new SharedArrayBuffer(12), requestThread = true) {
		this.buffer = buffer;
		this.#slots = new Int32Array(buffer);
		this.#requestThread = requestThread;
	}

	/** Blocks until this thread holds the lock (the request thread: at most `GIVE_UP_MS`). */
	acquire(): boolean {
		const started = Date.now();
		for (;;) {
			if (!this.#requestThread && this.#waitedForOthersTurn()) continue;
			const holder = Atomics.compareExchange(this.#slots, HOLDER, 0, this.#me);
			if (holder === 0) {
				// A pause begun as this thread took the lock: it gives it back (see pausingOthers).
				if (!this.#requestThread && this.#otherPauser() !== 0) {
					this.release();
					continue;
				}
				if (this.#requestThread) Atomics.store(this.#slots, REQUEST_WAITING, 0);
				return true;
			}
			if (this.#requestThread) {
				if (Date.now() - started > GIVE_UP_MS) {
					Atomics.store(this.#slots, REQUEST_WAITING, 0);
					return false;
				}
				Atomics.store(this.#slots, REQUEST_WAITING, 1);
			}
			Atomics.wait(this.#slots, HOLDER, holder, WAIT_SLICE_MS);
		}
	}

	/**
	 * Runs `work` while no thread but this one and the request thread starts a write transaction (one
	 * begun before may still end during it). Neither the request thread nor this one waits for the
	 * lock: a pause that waited its turn behind the request thread's transactions would hold the
	 * others back for as long as those went on.
	 */
	pausingOthers<T>(work: () => T): T {
		Atomics.store(this.#slots, PAUSED_BY, this.#me);
		try {
			return work();
		} finally {
			this.#endPause(this.#me);
		}
	}

	/** Whether this thread (not the request thread) waited, for the request thread or a pause. */
	#waitedForOthersTurn(): boolean {
		if (Atomics.load(this.#slots, REQUEST_WAITING) === 1) {
			Atomics.wait(this.#slots, REQUEST_WAITING, 1, WAIT_SLICE_MS);
			return true;
		}
		const pausedBy = this.#otherPauser();
		if (pausedBy === 0) return false;
		Atomics.wait(this.#slots, PAUSED_BY, pausedBy, WAIT_SLICE_MS);
		return true;
	}

	/** The id + 1 of another thread pausing this one, or 0. */
	#otherPauser(): number {
		const pausedBy = Atomics.load(this.#slots, PAUSED_BY);
		return pausedBy === this.#me ? 0 : pausedBy;
	}

	#endPause(pausedBy: number): void {
		if (Atomics.compareExchange(this.#slots, PAUSED_BY, pausedBy, 0) === pausedBy)
			Atomics.notify(this.#slots, PAUSED_BY);
	}

	release(): void {
		Atomics.compareExchange(this.#slots, HOLDER, this.#me, 0);
		Atomics.notify(this.#slots, HOLDER);
		Atomics.notify(this.#slots, REQUEST_WAITING);
	}

	/** Frees the lock, and ends a pause, if the thread `deadThreadId` died holding them. */
	releaseFor(deadThreadId: number): void {
		if (Atomics.compareExchange(this.#slots, HOLDER, deadThreadId + 1, 0) !== 0)
			Atomics.notify(this.#slots, HOLDER);
		this.#endPause(deadThreadId + 1);
	}
}
