/**
 * Waits until `check` holds (returns true or a value that is not false/undefined), looking again
 * every `intervalMs`; fails with `what` after `timeoutMs`. For conditions that come true on their
 * own time (a process exiting, a delivery arriving); never a fixed sleep.
 */
export async function eventually<T>(
	check: () => T | Promise<T>,
	what: string,
	{ timeoutMs = 20_000, intervalMs = 20 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<Exclude<T, false | undefined>> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== false && value !== undefined) return value as Exclude<T, false | undefined>;
		if (Date.now() > deadline)
			throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, intervalMs));
	}
}
