import type { Clock } from '../../server/src/core/clock.ts';

/**
 * A clock that stands still until the test moves it. Its time is in shared memory, so that the
 * server's outbox thread reads it too.
 */
export class ManualClock implements Clock {
	readonly shared = new SharedArrayBuffer(8);
	readonly #time = new BigInt64Array(this.shared);

	constructor(start = Date.parse('2026-01-05T09:00:00.000Z')) {
		Atomics.store(this.#time, 0, BigInt(start));
	}

	now(): number {
		return Number(Atomics.load(this.#time, 0));
	}

	advance(ms: number): void {
		Atomics.add(this.#time, 0, BigInt(Math.round(ms)));
	}
}
