/** Where a retention step got to: how many rows it deleted, and where the next starts (null: done). */
export interface RetentionStep {
	deleted: number;
	next: number | null;
}

/**
 * One step of the retention over a table's oldest rows (`rows`, the `limit` after the last step, by
 * seq, which follows their time): `remove` deletes what it may of those before `cutoff`. Done once a
 * row at or after `cutoff` was reached, or the table's end.
 */
export function retentionStep<Row extends { seq: number; occurred_at: string }>(
	rows: Row[],
	cutoff: string,
	limit: number,
	remove: (old: Row[]) => number,
): RetentionStep {
	const old = rows.filter((row) => row.occurred_at < cutoff);
	const deleted = old.length > 0 ? remove(old) : 0;
	const done = old.length < rows.length || rows.length < limit;
	return { deleted, next: done ? null : rows.at(-1)!.seq };
}
