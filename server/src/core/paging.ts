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

/** Keyset-paged rows, in the order of their unique `seq`. */
type FetchRows<Row> = (after: number, limit: number) => Row[];

/**
 * One page of a keyset-paged list. `fetch` returns rows after (ascending) or before (descending)
 * a position; one row more than the page is read, only to tell that another page exists, and the
 * last row of the page is where the next one starts. Positions are sealed into cursors by the
 * HTTP layer (CursorSeal, beside this file).
 */
export function pageOf<Row extends { seq: number }, T>(
	request: PageRequest,
	order: 'ascending' | 'descending',
	fetch: FetchRows<Row>,
	toItem: (row: Row) => T,
): Page<T> {
	const start = request.after ?? (order === 'ascending' ? 0 : Number.MAX_SAFE_INTEGER);
	const rows = fetch(start, request.limit + 1);
	const pageRows = rows.slice(0, request.limit);
	const last = pageRows.at(-1);
	return {
		items: pageRows.map(toItem),
		nextAfter: rows.length > request.limit && last ? last.seq : null,
	};
}
