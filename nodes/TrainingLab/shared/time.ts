/**
 * An RFC 3339 timestamp for the API. n8n's date picker gives a wall-clock time without offset,
 * meant in the workflow's timezone; a value that already has `Z` or an offset is kept as it is.
 */
export function toRfc3339(value: string, timeZone: string): string {
	if (/(Z|[+-]\d\d:?\d\d)$/i.test(value)) return value;
	const wallClockAsUtc = Date.parse(`${value}Z`);
	if (Number.isNaN(wallClockAsUtc)) return value; // let the API name the problem
	// The zone's offset at that moment (checked twice, so a time next to a DST change lands right).
	let instant = wallClockAsUtc - offsetMs(wallClockAsUtc, timeZone);
	instant = wallClockAsUtc - offsetMs(instant, timeZone);
	return new Date(instant).toISOString();
}

function offsetMs(instant: number, timeZone: string): number {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
		hour: '2-digit',
		minute: '2-digit',
		second: '2-digit',
	}).formatToParts(new Date(instant));
	const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
	const wallClock = Date.UTC(
		part('year'),
		part('month') - 1,
		part('day'),
		part('hour'),
		part('minute'),
		part('second'),
	);
	return wallClock - Math.floor(instant / 1000) * 1000;
}
