import { retryDelayMs } from '../../server/src/outbox/retry-rules.ts';

const SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];

describe('retry schedule', () => {
	it('waits each delay of the schedule in turn, within ±10%', () => {
		SCHEDULE.forEach((seconds, index) => {
			expect(retryDelayMs(SCHEDULE, index + 1, () => 0)).toBe(seconds * 900);
			expect(retryDelayMs(SCHEDULE, index + 1, () => 0.5)).toBe(seconds * 1000);
			expect(retryDelayMs(SCHEDULE, index + 1, () => 1)).toBe(seconds * 1100);
		});
	});

	it('spreads retries that fall due together', () => {
		const delays = new Set(Array.from({ length: 100 }, () => retryDelayMs(SCHEDULE, 2)));
		expect(delays.size).toBeGreaterThan(50);
		for (const delay of delays) {
			expect(delay).toBeGreaterThanOrEqual(270_000);
			expect(delay).toBeLessThanOrEqual(330_000);
		}
	});

	it('ends after the last delay: the delivery is then exhausted', () => {
		expect(retryDelayMs(SCHEDULE, SCHEDULE.length + 1)).toBeNull();
	});
});
