import type { Clock } from '../../server/src/core/clock.ts';

/** A clock that stands still until the test moves it. */
export class ManualClock implements Clock {
	#now: number;

	constructor(start = Date.parse('2026-01-05T09:00:00.000Z')) {
		this.#now = start;
	}

	now(): number {
		return this.#now;
	}

	advance(ms: number): void {
		this.#now += ms;
	}
}
