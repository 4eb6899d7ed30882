import { h, svg, type Child } from '../dom.ts';
import { relative, time } from '../format.ts';
import type { HealthWindow, WebhookHealth } from '../types.ts';

const WIDTH = 240;
const HEIGHT = 48;
const percent = (rate: number) => `${Math.round(rate * 100)} %`;
const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

/**
 * An endpoint's health on its page: what waits, and the last hour and day as two small charts —
 * each point's share of attempts delivered (bars) and the mean answer time (dots) — each with a
 * sentence that says the same and a table of its points, for a keyboard or a screen reader. Drawn
 * again only when the health changed, with the tables a person opened still open.
 */
export class HealthPanel {
	readonly element = h('section', { class: 'health', 'aria-labelledby': 'health-title' });
	#shown = '';

	show(health: WebhookHealth): void {
		const json = JSON.stringify(health);
		if (json === this.#shown) return;
		this.#shown = json;
		const open = [...this.element.querySelectorAll('details')].map((details) => details.open);
		this.element.replaceChildren(
			h('h2', { id: 'health-title' }, 'Health'),
			h('p', {}, ...waitingText(health)),
			h(
				'div',
				{ class: 'health-charts' },
				chart('Last hour', 'every 5 minutes', health.last_hour),
				chart('Last day', 'every hour', health.last_day),
			),
		);
		this.element.querySelectorAll('details').forEach((details, index) => {
			details.open = open[index] ?? false;
		});
	}
}

/**
 * An endpoint's health in its row of the list: the last hour and day as small charts, the hour in a
 * sentence, the day in a few words, and what waits.
 */
export function healthCell(health: WebhookHealth): HTMLElement {
	const day = health.last_day;
	return h(
		'span',
		{ class: 'health-cell' },
		h(
			'span',
			{ class: 'health-sparks' },
			h('span', {}, bars(health.last_hour, 'small'), h('span', { class: 'muted' }, '1 h')),
			h('span', {}, bars(day, 'small'), h('span', { class: 'muted' }, '24 h')),
		),
		h('span', { class: 'block' }, summary(health.last_hour, 'last hour')),
		day.attempts > 0
			? h(
					'span',
					{ class: 'block muted' },
					`Last day: ${percent(day.success_rate ?? 0)} of ${day.attempts}${day.mean_answer_ms === null ? '' : `, ${day.mean_answer_ms} ms`}.`,
				)
			: null,
		health.waiting > 0 ? h('span', { class: 'block muted' }, ...waitingText(health)) : null,
	);
}

function waitingText(health: WebhookHealth): Child[] {
	if (health.waiting === 0 || !health.oldest_waiting_event_at) return ['Nothing waits.'];
	return [
		`${health.waiting} waiting; the oldest since `,
		time(health.oldest_waiting_event_at),
		` (${relative(health.oldest_waiting_event_at)}).`,
	];
}

function summary(window: HealthWindow, span: string): string {
	if (window.attempts === 0) return `No attempt in the ${span}.`;
	const answer =
		window.mean_answer_ms === null ? '' : `, answered in ${window.mean_answer_ms} ms on average`;
	return `${percent(window.success_rate ?? 0)} of ${window.attempts} attempts delivered in the ${span}${answer}.`;
}

/** What the chart's marks stand for; the dots' scale is the slowest point's mean answer. */
function legend(window: HealthWindow): string {
	const slowest = Math.max(0, ...window.points.map((point) => point.mean_answer_ms ?? 0));
	return `Each bar: green delivered, red not. Dots: mean answer time, the top ${slowest} ms.`;
}

function chart(title: string, each: string, window: HealthWindow): HTMLElement {
	const span = title.toLowerCase();
	return h(
		'figure',
		{ class: 'health-chart' },
		h('figcaption', {}, h('strong', {}, title), ' ', summary(window, span)),
		bars(window, 'large'),
		h('p', { class: 'legend muted' }, legend(window)),
		h(
			'details',
			{},
			h('summary', {}, `${title}, ${each}`),
			h(
				'table',
				{},
				h('caption', { class: 'visually-hidden' }, `Attempts ${each}, ${span}`),
				h(
					'thead',
					{},
					h(
						'tr',
						{},
						h('th', { scope: 'col' }, 'From'),
						h('th', { scope: 'col' }, 'Attempts'),
						h('th', { scope: 'col' }, 'Delivered'),
						h('th', { scope: 'col' }, 'Mean answer'),
					),
				),
				h(
					'tbody',
					{},
					...window.points.map((point) =>
						h(
							'tr',
							{},
							h('td', {}, clock.format(new Date(point.start))),
							h('td', {}, point.attempts),
							h(
								'td',
								{},
								point.attempts === 0
									? '—'
									: `${point.delivered} (${percent(point.delivered / point.attempts)})`,
							),
							h('td', {}, point.mean_answer_ms === null ? '—' : `${point.mean_answer_ms} ms`),
						),
					),
				),
			),
		),
	);
}

/**
 * The points as bars: each as tall as its share delivered, green, the rest of it red; a point
 * without attempts a thin grey line. With `large`, the mean answer times as dots over them (scaled
 * to the slowest). Decoration: the sentence and the table say it in words.
 */
function bars(window: HealthWindow, size: 'small' | 'large'): SVGElement {
	const width = size === 'large' ? WIDTH : WIDTH / 2;
	const height = size === 'large' ? HEIGHT : HEIGHT / 2;
	const step = width / window.points.length;
	const slowest = Math.max(1, ...window.points.map((point) => point.mean_answer_ms ?? 0));
	const shapes: SVGElement[] = [];
	window.points.forEach((point, index) => {
		const x = index * step + 1;
		const barWidth = Math.max(1, step - 2);
		if (point.attempts === 0) {
			shapes.push(svg('rect', { class: 'empty', x, y: height - 1, width: barWidth, height: 1 }));
			return;
		}
		const delivered = (point.delivered / point.attempts) * height;
		shapes.push(
			svg('rect', { class: 'failed', x, y: 0, width: barWidth, height: height - delivered }),
		);
		shapes.push(
			svg('rect', {
				class: 'delivered',
				x,
				y: height - delivered,
				width: barWidth,
				height: delivered,
			}),
		);
		if (point.mean_answer_ms !== null)
			shapes.push(
				svg('circle', {
					class: 'answer',
					cx: x + barWidth / 2,
					cy: height - (point.mean_answer_ms / slowest) * (height - 4) - 2,
					r: size === 'large' ? 2 : 1.5,
				}),
			);
	});
	return svg(
		'svg',
		{
			class: `bars ${size}`,
			viewBox: `0 0 ${width} ${height}`,
			width,
			height,
			'aria-hidden': 'true',
			focusable: 'false',
		},
		...shapes,
	);
}
