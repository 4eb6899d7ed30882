import { encodeCursor } from '../schemas/common.ts';

export interface Page<T> {
  items: T[];
  /** Cursor of the next page, or null on the last page. */
  nextCursor: string | null;
}

/**
 * Keyset paging: repositories fetch `limit + 1` rows ordered by their unique `seq`;
 * the extra row only tells that another page exists, and the last returned row's seq is the cursor.
 */
export function toPage<Row extends { seq: number }, T>(rows: Row[], limit: number, toItem: (row: Row) => T): Page<T> {
  const pageRows = rows.slice(0, limit);
  const last = pageRows.at(-1);
  return {
    items: pageRows.map(toItem),
    nextCursor: rows.length > limit && last ? encodeCursor(last.seq) : null,
  };
}

/** Position for "after the start" of an ascending list, and "before the end" of a descending one. */
export const FIRST_ASCENDING = 0;
export const FIRST_DESCENDING = Number.MAX_SAFE_INTEGER;
