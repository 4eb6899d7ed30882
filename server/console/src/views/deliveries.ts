import type { Page } from '../api.ts';
import { badge, h, link, relative, replaceChildren, time } from '../dom.ts';
import type { ViewContext } from '../routes.ts';
import type { Delivery, DeliveryAttempt, Webhook } from '../types.ts';
import { webhooksPath } from './webhooks.ts';

const LIVE_EVERY_MS = 3_000;
const PAGE_SIZE = 50;

const STATUS_TONE = {
	succeeded: 'good',
	failed: 'bad',
	exhausted: 'bad',
	pending: 'wait',
} as const;

/** One endpoint and its deliveries, newest first, each with every attempt as a timeline. */
export async function deliveriesPage(context: ViewContext): Promise<HTMLElement> {
	const { api, me } = context;
	const path = `${webhooksPath(me.org.id)}/${encodeURIComponent(context.params.id)}`;
	const webhook = await api.get<Webhook>(path);
	context.setTitle('Deliveries · Webhooks');
	const list = h('ol', { class: 'deliveries', 'aria-label': 'Deliveries, newest first' });
	const more = h('p', {});
	let shownJson = '';
	let olderLoaded = false;

	async function drawFirstPage(): Promise<void> {
		const page = await api.page<Delivery>(`${path}/deliveries`, { limit: PAGE_SIZE });
		if (!context.isCurrent()) return;
		const json = JSON.stringify(page.items);
		if (json === shownJson) return; // nothing new: leave the page (and the reader's place) alone
		shownJson = json;
		replaceChildren(list, ...page.items.map(deliveryItem));
		if (page.items.length === 0)
			list.append(
				h(
					'li',
					{ class: 'empty' },
					'No deliveries yet. Events this endpoint subscribes to appear here.',
				),
			);
		drawMore(page);
	}

	function drawMore(page: Page<Delivery>): void {
		if (!page.next) return replaceChildren(more);
		const button = h('button', { type: 'button' }, 'Show older deliveries');
		button.addEventListener('click', async () => {
			olderLoaded = true;
			const older = await api.page<Delivery>(`${path}/deliveries`, { limit: PAGE_SIZE }, page.next);
			list.append(...older.items.map(deliveryItem));
			drawMore(older);
		});
		replaceChildren(more, button);
	}

	await drawFirstPage();
	context.every(LIVE_EVERY_MS, () => {
		if (!olderLoaded) void drawFirstPage().catch(() => {});
	});
	return h(
		'div',
		{},
		h('p', { class: 'breadcrumb' }, link('/webhooks', 'Webhooks')),
		h('h1', {}, 'Deliveries'),
		h(
			'dl',
			{ class: 'facts' },
			h('dt', {}, 'Endpoint'),
			h('dd', {}, h('code', { class: 'wrap' }, webhook.url)),
			webhook.description ? h('dt', {}, 'Description') : null,
			webhook.description ? h('dd', {}, webhook.description) : null,
			h('dt', {}, 'Events'),
			h('dd', {}, webhook.event_types.join(', ')),
			h('dt', {}, 'State'),
			h(
				'dd',
				{},
				webhook.disabled_at
					? h(
							'span',
							{},
							badge('disabled', 'bad'),
							' after a 410 Gone at ',
							time(webhook.disabled_at),
						)
					: badge('enabled', 'good'),
			),
		),
		h('p', { class: 'muted' }, 'Updates by itself every few seconds while this page is open.'),
		list,
		more,
	);
}

function deliveryItem(delivery: Delivery): HTMLLIElement {
	const headingId = `delivery-${delivery.id}`;
	const steps = delivery.attempt_log.map(attemptStep);
	if (delivery.status === 'pending' && delivery.attempt_log.length === 0)
		steps.push(
			h(
				'li',
				{ class: 'attempt attempt-wait' },
				h('span', { class: 'mark', 'aria-hidden': 'true' }, '…'),
				h('span', {}, 'Waiting for its first attempt'),
			),
		);
	if (delivery.next_attempt_at)
		steps.push(
			h(
				'li',
				{ class: 'attempt attempt-wait' },
				h('span', { class: 'mark', 'aria-hidden': 'true' }, '↻'),
				h('span', { class: 'attempt-title' }, 'Next retry'),
				h('span', {}, time(delivery.next_attempt_at), ` (${relative(delivery.next_attempt_at)})`),
			),
		);
	return h(
		'li',
		{ class: 'delivery', 'aria-labelledby': headingId },
		h(
			'h2',
			{ class: 'delivery-head', id: headingId },
			h('span', {}, delivery.event_type),
			' ',
			badge(delivery.status, STATUS_TONE[delivery.status]),
			' ',
			h(
				'span',
				{ class: 'muted small' },
				`${delivery.attempts} ${delivery.attempts === 1 ? 'attempt' : 'attempts'}`,
			),
		),
		h('p', { class: 'muted small' }, 'Event ', h('code', {}, delivery.event_id)),
		h(
			'ol',
			{ class: 'attempts', 'aria-label': `Attempts of the ${delivery.event_type} delivery` },
			...steps,
		),
	);
}

function attemptStep(attempt: DeliveryAttempt): HTMLLIElement {
	const ok = attempt.error === null;
	const outcome = attempt.status_code === null ? 'no answer' : `HTTP ${attempt.status_code}`;
	// The error repeats the status ("HTTP 503: down for maintenance"): only what it adds is shown.
	const detail = attempt.error?.startsWith(outcome)
		? attempt.error.slice(outcome.length).replace(/^[:\s]*/, '')
		: attempt.error;
	return h(
		'li',
		{ class: `attempt ${ok ? 'attempt-ok' : 'attempt-bad'}` },
		h('span', { class: 'mark', 'aria-hidden': 'true' }, ok ? '✓' : '✕'),
		h(
			'span',
			{ class: 'attempt-title' },
			`Attempt ${attempt.attempt}: ${ok ? 'delivered' : 'failed'}`,
		),
		h('span', {}, time(attempt.attempted_at, 'time'), ` · ${attempt.duration_ms} ms · ${outcome}`),
		detail ? h('span', { class: 'attempt-error' }, detail) : null,
	);
}
