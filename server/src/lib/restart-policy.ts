/** A thread that ran this long before it died had settled: it is started again at once. */
const SETTLED_MS = 30_000;
const FIRST_DELAY_MS = 1_000;
const MAX_DELAY_MS = 60_000;

/**
 * When one of the server's threads that died is started again. After one that had run a while
 * (30 s), at once. After one that died sooner, at once the first time, then after 1 s, 2 s, 4 s …
 * up to a minute for each further such death in a row: a thread that dies as it starts (on a
 * database it cannot open, say) is not started again as fast as it can die.
 */
export class RestartPolicy {
	readonly #now: () => number;
	#startedAt = 0;
	#quickDeaths = 0;
	#waiting: NodeJS.Timeout | undefined;

	/** `now`: milliseconds from any origin (a test's own). */
	constructor(now: () => number = () => performance.now()) {
		this.#now = now;
	}

	/** The thread has been started. */
	started(): void {
		this.#startedAt = this.#now();
	}

	/** The thread died just now: how long to wait before starting it again, in milliseconds. */
	delayAfterDeath(): number {
		if (this.#now() - this.#startedAt >= SETTLED_MS) this.#quickDeaths = 0;
		const delay =
			this.#quickDeaths === 0
				? 0
				: Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (this.#quickDeaths - 1));
		this.#quickDeaths++;
		return delay;
	}

	/** Runs `start` after `delay` ms (at once for 0). A start that waits never keeps the process alive. */
	startAfter(delay: number, start: () => void): void {
		if (delay === 0) return start();
		this.#waiting = setTimeout(() => {
			this.#waiting = undefined;
			start();
		}, delay).unref();
	}

	/** Whether a start waits for its delay: no thread runs meanwhile. */
	get waiting(): boolean {
		return this.#waiting !== undefined;
	}

	/** Drops the start that waits, if one does (the server stops). */
	cancel(): void {
		clearTimeout(this.#waiting);
		this.#waiting = undefined;
	}
}

/** How a log line says when a thread starts again. */
export function startingAgain(delay: number): string {
	return delay === 0 ? 'starting it again' : `starting it again in ${delay / 1000} s`;
}
