import type { Clock } from '../core/clock.ts';
import type { Backlog } from '../outbox/backlog.ts';

/** Waiting deliveries from which a reading is kept for a while: fewer are read at every scrape. */
export const KEPT_FROM_WAITING = 10_000;
/** Waiting deliveries per second a reading is kept: 150,000 waiting are read every 3 s at most. */
export const WAITING_PER_SECOND_KEPT = 50_000;

/**
 * The outbox's backlog as `/metrics` reports it: how many deliveries wait, and the event time of
 * the oldest. Both walk every waiting delivery's entry in the due index, on the thread that answers
 * requests: about 30 ms a scrape with 150,000 waiting on EPYC, the page cache lost to each commit
 * of the outbox thread. So from KEPT_FROM_WAITING on, a reading is kept for a second per
 * WAITING_PER_SECOND_KEPT that wait, however often Prometheus scrapes: with that many waiting,
 * a count seconds old tells as much, and the oldest's age is still worked out at each scrape.
 */
export class BacklogReading {
	readonly #backlog: Backlog;
	readonly #clock: Clock;
	#waiting = 0;
	#waitingReadAt = -Infinity;
	#oldestEventAt: string | null = null;
	#oldestReadAt = -Infinity;

	constructor(backlog: Backlog, clock: Clock) {
		this.#backlog = backlog;
		this.#clock = clock;
	}

	/** Deliveries not yet delivered nor given up. */
	waiting(): number {
		if (!this.#kept(this.#waitingReadAt)) {
			this.#waitingReadAt = this.#clock.now();
			this.#waiting = this.#backlog.waiting();
		}
		return this.#waiting;
	}

	/** The event time of the oldest waiting delivery, or null when none waits. */
	oldestEventAt(): string | null {
		if (!this.#kept(this.#oldestReadAt)) {
			this.#oldestReadAt = this.#clock.now();
			this.#oldestEventAt = this.#backlog.oldestWaitingEventAt();
		}
		return this.#oldestEventAt;
	}

	/** Whether a reading taken at `readAt` is still good, by the backlog last counted. */
	#kept(readAt: number): boolean {
		if (this.#waiting < KEPT_FROM_WAITING) return false;
		const age = this.#clock.now() - readAt;
		// A clock stepped back would otherwise keep the reading until it caught up.
		return age >= 0 && age < (this.#waiting / WAITING_PER_SECOND_KEPT) * 1000;
	}
}
