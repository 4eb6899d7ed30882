import type { Page } from '../api.ts';
import { h, replaceChildren } from '../dom.ts';
import { time } from '../format.ts';
import type { ViewContext } from './context.ts';
import type { ActivityEvent } from '../types.ts';
import { row, table } from '../ui.ts';

const LIVE_EVERY_MS = 3_000;
const PAGE_SIZE = 50;

/** The organization's activity log, newest first, with new events added while the page is open. */
export async function activityPage(context: ViewContext): Promise<HTMLElement> {
	const { api, me } = context;
	const path = '/orgs/{orgId}/events';
	const orgId = me.org.id;
	const shown: ActivityEvent[] = [];
	const list = h('div', {});
	const more = h('p', {});
	const live = h('p', { class: 'muted', role: 'status', 'aria-live': 'polite' });
	let olderCursor: string | null = null;

	function draw(): void {
		replaceChildren(
			list,
			table(
				'Events',
				['When', 'Event', 'By', 'Details'],
				shown.map((event) =>
					row(time(event.occurred_at), h('code', {}, event.type), event.actor, details(event.data)),
				),
			),
		);
		if (!olderCursor) return replaceChildren(more);
		const button = h('button', { type: 'button' }, 'Show older events');
		button.addEventListener('click', async () => {
			const older: Page<ActivityEvent> = await api.page(
				path,
				{ query: { limit: PAGE_SIZE }, cursor: olderCursor },
				{ orgId },
			);
			shown.push(...older.items);
			olderCursor = older.next;
			draw();
		});
		replaceChildren(more, button);
	}

	const first = await api.page(path, { query: { limit: PAGE_SIZE } }, { orgId });
	shown.push(...first.items);
	olderCursor = first.next;
	draw();

	context.every(LIVE_EVERY_MS, async () => {
		const newest = await api
			.page(path, { query: { limit: PAGE_SIZE } }, { orgId })
			.catch(() => null);
		if (!newest || !context.isCurrent()) return;
		const known = new Set(shown.map((event) => event.id));
		const fresh = newest.items.filter((event) => !known.has(event.id));
		if (fresh.length === 0) return;
		shown.unshift(...fresh);
		draw();
		live.textContent = `${fresh.length} new ${fresh.length === 1 ? 'event' : 'events'}: ${fresh.map((event) => event.type).join(', ')}.`;
	});

	return h(
		'div',
		{},
		h('h1', {}, 'Activity'),
		h(
			'p',
			{ class: 'muted' },
			'Every change in the organization, newest first. New events appear by themselves.',
		),
		live,
		list,
		more,
	);
}

/** The event's data as "name: value" lines, each value as text. */
function details(data: Record<string, unknown>): HTMLElement {
	return h(
		'dl',
		{ class: 'event-data' },
		...Object.entries(data).flatMap(([name, value]) => [
			h('dt', {}, name),
			h('dd', {}, typeof value === 'string' ? value : JSON.stringify(value)),
		]),
	);
}
