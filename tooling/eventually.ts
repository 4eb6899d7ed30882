export interface EventuallyOptions {
	timeoutMs?: number;
	intervalMs?: number;
	/** Errors of `check` to take as "not yet" (a server still starting); others fail at once. */
	retryErrors?: (error: Error) => boolean;
	/** More to say when time is up (the end of a process's log). */
	explain?: () => string;
}

/**
 * Waits until `check` holds (returns true or a value that is not false/undefined), looking again
 * every `intervalMs`; fails with `what` after `timeoutMs`. For conditions that come true on their
 * own time (a process exiting, a delivery arriving); never a fixed sleep.
 */
export async function eventually<T>(
	check: () => T | Promise<T>,
	what: string,
	{ timeoutMs = 20_000, intervalMs = 20, retryErrors, explain }: EventuallyOptions = {},
): Promise<Exclude<T, false | undefined>> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		let value: T | undefined;
		try {
			value = await check();
		} catch (error) {
			if (!retryErrors?.(error as Error)) throw error;
		}
		if (value !== false && value !== undefined) return value as Exclude<T, false | undefined>;
		if (Date.now() > deadline) {
			const more = explain?.();
			throw new Error(
				`Timed out after ${timeoutMs} ms waiting for ${what}${more ? `\n${more}` : ''}`,
			);
		}
		await new Promise((resolve) => setTimeout(resolve, intervalMs));
	}
}
