/** How long each of two processes runs before the other's turn. */
const TURN_MS = 100;

/**
 * Runs `work` while the processes `pids` (on one CPU) take turns: one runs while the other is
 * stopped (SIGSTOP), and they swap every 100 ms; the first of `pids` runs first. Answers what
 * `work` answered and how many seconds each process ran. Both run again once `work` is done, or
 * has failed.
 *
 * Two servers read one after the other read the machine at two moments, and the speed of this
 * class of machine wanders by a tenth from one second to the next: taking turns, both read it at
 * the same moments.
 */
export async function inTurns<T>(
	pids: readonly [number, number],
	work: () => Promise<T>,
): Promise<{ result: T; ran: [number, number] }> {
	const ran: [number, number] = [0, 0];
	let running = 0;
	let since = performance.now();
	const swap = () => {
		process.kill(pids[running], 'SIGSTOP');
		const now = performance.now();
		ran[running] += (now - since) / 1000;
		running = 1 - running;
		since = now;
		process.kill(pids[running], 'SIGCONT');
	};
	process.kill(pids[1], 'SIGSTOP');
	const timer = setInterval(swap, TURN_MS);
	try {
		const result = await work();
		ran[running] += (performance.now() - since) / 1000;
		return { result, ran };
	} finally {
		clearInterval(timer);
		for (const pid of pids) process.kill(pid, 'SIGCONT');
	}
}
