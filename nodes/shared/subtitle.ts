/**
 * A node subtitle showing display names instead of internal values: `key` is the expression (inside
 * `{{ }}`) whose value is looked up in `names`; an unknown value shows as it is.
 */
export function subtitleLookup(names: Record<string, string>, key: string): string {
	return `={{ (${JSON.stringify(names)})[${key}] ?? ${key} }}`;
}

/** The subtitle of a trigger: its selected event types by their display names, comma-separated. */
export function eventsSubtitle(options: Array<{ name: string; value: unknown }>): string {
	const names = Object.fromEntries(options.map((option) => [String(option.value), option.name]));
	return `={{ $parameter["events"].map((event) => (${JSON.stringify(names)})[event] ?? event).join(", ") }}`;
}
