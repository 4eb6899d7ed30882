/**
 * The one source of "now" for the server: rate-limit windows, idempotency expiry, timestamps of
 * changes and events, and the webhook schedule all read it, so tests can move time instead of waiting.
 */
export interface Clock {
	/** Unix milliseconds. */
	now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

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
