import { RestartPolicy } from '../../server/src/lib/restart-policy.ts';

it('starts a thread that keeps dying as it starts after a delay that doubles, up to a minute, and one that had settled at once', () => {
	let now = 0;
	const policy = new RestartPolicy(() => now);
	const delays: number[] = [];
	for (let death = 0; death < 9; death++) {
		policy.started();
		now += 5;
		delays.push(policy.delayAfterDeath());
	}
	expect(delays).toEqual([0, 1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]);
	// A thread that ran 30 s before it died had settled: started again at once, and counted afresh.
	policy.started();
	now += 30_000;
	expect(policy.delayAfterDeath()).toBe(0);
	policy.started();
	now += 5;
	expect(policy.delayAfterDeath()).toBe(1000);
});

it('runs a start after its delay, unless cancelled; says meanwhile that one waits', () => {
	jest.useFakeTimers();
	try {
		const policy = new RestartPolicy(() => 0);
		let starts = 0;
		policy.startAfter(0, () => starts++);
		expect([starts, policy.waiting]).toEqual([1, false]);
		policy.startAfter(1000, () => starts++);
		expect(policy.waiting).toBe(true);
		jest.advanceTimersByTime(999);
		expect(starts).toBe(1);
		jest.advanceTimersByTime(1);
		expect([starts, policy.waiting]).toEqual([2, false]);
		policy.startAfter(1000, () => starts++);
		policy.cancel();
		expect(policy.waiting).toBe(false);
		jest.advanceTimersByTime(60_000);
		expect(starts).toBe(2);
	} finally {
		jest.useRealTimers();
	}
});
