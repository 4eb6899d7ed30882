/** What a list endpoint is asked for: a page size and the position to continue after. */
export interface PageRequest {
	limit: number;
	/** Sequence number of the last row of the previous page; absent for the first page. */
	after?: number;
}

export interface Page<T> {
	items: T[];
	/** Position of the next page (the last row's sequence number), or null on the last page. */
	nextAfter: number | null;
}

/**
 * Keyset paging: repositories fetch `limit + 1` rows ordered by their unique `seq`;
 * the extra row only tells that another page exists, and the last returned row's seq is where the next starts.
 */
export function toPage<Row extends { seq: number }, T>(
	rows: Row[],
	limit: number,
	toItem: (row: Row) => T,
): Page<T> {
	const pageRows = rows.slice(0, limit);
	const last = pageRows.at(-1);
	return {
		items: pageRows.map(toItem),
		nextAfter: rows.length > limit && last ? last.seq : null,
	};
}

/** Position for "after the start" of an ascending list, and "before the end" of a descending one. */
export const FIRST_ASCENDING = 0;
export const FIRST_DESCENDING = Number.MAX_SAFE_INTEGER;
