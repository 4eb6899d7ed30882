import { z } from 'zod';
import { BOUNDS } from './bounds.ts';

// Clients read these messages (n8n shows them to users): say "Required" rather than "received undefined".
z.config({
	customError: (issue) =>
		issue.code === 'invalid_type' && issue.input === undefined ? 'Required' : undefined,
});

export const ROLES = ['admin', 'trainer'] as const;
export const Role = z.enum(ROLES).meta({ description: '`admin` or `trainer`.' });
export type Role = z.infer<typeof Role>;

/**
 * A value a client sent, quoted in an error message: at most 64 characters of it, so that an error
 * does not repeat a huge input back.
 */
export function quoted(input: unknown): string {
	const text = String(input);
	return text.length > 64 ? `${JSON.stringify(text.slice(0, 64))}…` : JSON.stringify(text);
}

/** Path and body ids: any RFC 9562 UUID, case-insensitive, normalised to lower case. */
export const Uuid = z.uuid().toLowerCase();

/**
 * Names and titles: 1–200 characters after trimming, at least one of them visible (a letter, digit,
 * punctuation or symbol), none of them a control character.
 */
export const Name = z
	.string()
	.trim()
	.min(BOUNDS.name.min)
	.max(BOUNDS.name.max)
	.refine((value) => /[\p{L}\p{N}\p{P}\p{S}]/u.test(value), 'Must contain a visible character')
	.refine((value) => !/\p{Cc}/u.test(value), 'Must not contain control characters');

export const Email = z
	.email()
	.max(BOUNDS.email.max)
	.toLowerCase()
	.meta({ description: 'E-mail address, stored lower-cased.' });

/**
 * RFC 3339 with `Z` or an offset on input; always UTC with `Z` on output. Times are stored and
 * compared as these strings, so one whose UTC form leaves the years 0000–9999 (`9999-12-31T23:59:59-23:59`
 * is in the year 10000, written `+010000-…`, which sorts before every year) is refused.
 */
export const TimestampInput = z.iso
	.datetime({ offset: true })
	.transform((value, ctx) => {
		const utc = new Date(value).toISOString();
		if (/^\d{4}-/.test(utc)) return utc;
		ctx.addIssue({ code: 'custom', message: 'Must fall within the years 0000–9999 in UTC' });
		return z.NEVER;
	})
	.meta({ description: 'RFC 3339 timestamp with `Z` or an offset; returned in UTC.' });

export const Timestamp = z
	.string()
	.meta({ description: 'RFC 3339 timestamp in UTC (`Z`).', format: 'date-time' });

/** Cursors are sealed by the server (see CursorSeal); here only their outer form is checked. */
const Cursor = z
	.string()
	.regex(/^[A-Za-z0-9_-]{1,128}$/, 'Invalid cursor; use the URL of the `Link: rel="next"` header.')
	.meta({
		description: 'Opaque position from the `Link: rel="next"` header of the previous page.',
	});

/** `limit` (1–200, plain decimal digits) and `cursor` of every list endpoint. */
export function listQuery(defaultLimit: number) {
	return z.object({
		// Decimal digits only: Number() would also read 0x10, 0b11, 1e1 and +5.
		limit: z
			.string()
			.regex(/^[0-9]{1,4}$/, 'Expected a whole number written in decimal digits')
			.transform(Number)
			.pipe(z.number().int().min(BOUNDS.pageSize.min).max(BOUNDS.pageSize.max))
			.default(defaultLimit)
			.meta({
				description: `Page size, ${BOUNDS.pageSize.min}–${BOUNDS.pageSize.max} (default ${defaultLimit}).`,
			}),
		cursor: Cursor.optional(),
	});
}

/**
 * A query parameter that lists values, given repeated (`types=a&types=b`) or separated by commas,
 * each checked by `item`; the values without repeats.
 */
export function listParameter<T extends string>(item: z.ZodType<T, string>, description: string) {
	return z
		.union([z.string(), z.array(z.string())])
		.transform((value) => [
			...new Set((Array.isArray(value) ? value : [value]).flatMap((part) => part.split(','))),
		])
		.pipe(z.array(item))
		.optional()
		.meta({ description });
}

/** `since` (at or after) and `until` (before) of a list filtered by time, RFC 3339. */
export function timeRange(what: string) {
	return {
		since: TimestampInput.pipe(Timestamp)
			.optional()
			.meta({ description: `Only ${what} at or after this time (RFC 3339).` }),
		until: TimestampInput.pipe(Timestamp)
			.optional()
			.meta({ description: `Only ${what} before this time (RFC 3339).` }),
	};
}

/** A time range must end after it starts. */
export const rangeInOrder: [
	(query: { since?: string; until?: string }) => boolean,
	{ message: string; path: string[] },
] = [
	(query) => !query.since || !query.until || query.since < query.until,
	{ message: '`until` must be later than `since`', path: ['until'] },
];
