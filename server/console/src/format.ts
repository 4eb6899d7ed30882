// Times as a person reads them: local date and time, or how long ago.
import { h, type Child } from './dom.ts';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

/** A `<time>` with the local date and time, the exact UTC value as its datetime. */
export function time(iso: string | null | undefined, style: 'full' | 'time' = 'full'): Child {
	if (!iso) return '—';
	const date = new Date(iso);
	if (Number.isNaN(date.getTime())) return iso;
	return h(
		'time',
		{ datetime: iso, title: iso },
		(style === 'time' ? timeOnly : dateTime).format(date),
	);
}

/** "in 4 min", "12 s ago": how far `iso` is from now. */
export function relative(iso: string, now = Date.now()): string {
	const seconds = Math.round((Date.parse(iso) - now) / 1000);
	const magnitude = Math.abs(seconds);
	const minutes = Math.round(magnitude / 60);
	const hours = Math.round(magnitude / 3600);
	// Each unit until the next one's rounding takes over: 59 min, then 1 h (never "60 min").
	const amount =
		magnitude < 60
			? `${magnitude} s`
			: minutes < 60
				? `${minutes} min`
				: hours < 24
					? `${hours} h`
					: `${Math.round(magnitude / 86_400)} d`;
	return seconds >= 0 ? `in ${amount}` : `${amount} ago`;
}
