import type { z } from 'zod';
import { ApiError } from '../core/errors.ts';

const WHERE = { params: 'Path parameter', query: 'Query parameter', body: 'Request body' } as const;
/** Problems listed in `details`: a request with thousands of bad values gets a short answer. */
const MAX_DETAILS = 20;

/** Parses input with its schema or throws a 400 naming the first problem (the first 20 in `details`). */
export function parseInput<S extends z.ZodType>(
	schema: S,
	input: unknown,
	where: keyof typeof WHERE,
): z.output<S> {
	const result = schema.safeParse(input);
	if (result.success) return result.data;
	const details = result.error.issues.map((issue) => ({
		path: issue.path.join('.'),
		message: issue.message,
	}));
	const first = details[0];
	const more = details.length > 1 ? ` (and ${details.length - 1} more)` : '';
	const location = first.path ? `${WHERE[where]} "${first.path}"` : WHERE[where];
	throw new ApiError(
		'validation_failed',
		`${location} is invalid: ${first.message}${more}`,
		details.slice(0, MAX_DETAILS),
	);
}
