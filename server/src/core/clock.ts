/**
 * The one source of "now" for the server: rate-limit windows, idempotency expiry, timestamps of
 * changes and events, and the webhook schedule all read it, so tests can move time instead of waiting.
 */
export interface Clock {
	/** Unix milliseconds. */
	now(): number;
	/**
	 * For a clock other than the system's (a test's): shared memory holding its time, so that the
	 * server's other threads (the webhook outbox's) read the same time (`sharedClock`).
	 */
	readonly shared?: SharedArrayBuffer;
}

export const systemClock: Clock = { now: () => Date.now() };

/** The clock whose time another thread keeps in `shared` (Unix ms, a 64-bit integer). */
export function sharedClock(shared: SharedArrayBuffer): Clock {
	const time = new BigInt64Array(shared);
	return { now: () => Number(Atomics.load(time, 0)), shared };
}

/** An instant as an RFC 3339 UTC timestamp with millisecond precision, the API's only timestamp format. */
export function isoAt(ms: number): string {
	return new Date(ms).toISOString();
}

/**
 * Bounds of a time range open on one side, for SQL over stored timestamps: `isoAt` writes them at a
 * fixed width, so text order is time order, and these come before and after every one of them.
 */
export const BEFORE_ALL_TIMES = '';
export const AFTER_ALL_TIMES = '~';
