/** Case-insensitive substring search over the given fields; no filter matches everything. */
export function matches(filter: string | undefined, ...fields: unknown[]): boolean {
	if (!filter) return true;
	const needle = filter.toLowerCase();
	return fields.some((field) => typeof field === 'string' && field.toLowerCase().includes(needle));
}
