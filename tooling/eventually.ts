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
	// The last error taken as "not yet": what a timeout was most likely waiting out.
	let lastError: Error | undefined;
	for (;;) {
		let value: T | undefined;
		try {
			value = await check();
			lastError = undefined;
		} catch (error) {
			if (!retryErrors?.(error as Error)) throw error;
			lastError = error as Error;
		}
		if (value !== false && value !== undefined) return value as Exclude<T, false | undefined>;
		if (Date.now() > deadline) {
			const more = [lastError && `the last try failed: ${messageOf(lastError)}`, explain?.()]
				.filter(Boolean)
				.join('\n');
			throw new Error(
				`Timed out after ${timeoutMs} ms waiting for ${what}${more ? `\n${more}` : ''}`,
			);
		}
		await new Promise((resolve) => setTimeout(resolve, intervalMs));
	}
}

/** An error's message and its causes' (fetch's "fetch failed" says why only in its cause). */
function messageOf(error: Error): string {
	const cause = (error as Error & { cause?: unknown }).cause;
	return cause instanceof Error ? `${error.message} (${messageOf(cause)})` : error.message;
}
