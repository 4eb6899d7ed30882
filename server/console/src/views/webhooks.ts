import { h, replaceChildren } from '../dom.ts';
import { time } from '../format.ts';
import type { ViewContext } from './context.ts';
import { all } from '../api.ts';
import type { EventType, EventTypeInfo, Webhook } from '../types.ts';
import { eventTypeChecks, eventTypes } from './event-types.ts';
import { healthCell } from './health.ts';
import {
	act,
	announce,
	badge,
	confirmAction,
	field,
	formCard,
	link,
	listTable,
	row,
	secretOnce,
} from '../ui.ts';

export async function webhooksPage(context: ViewContext): Promise<HTMLElement> {
	const { api, me } = context;
	const orgId = me.org.id;
	const feedback = h('div', { class: 'feedback' });
	const list = listTable(
		context,
		() => all(api, '/orgs/{orgId}/webhooks', { orgId }),
		'Webhook endpoints',
		['URL', 'Events', 'State', 'Health', 'Created', 'Actions'],
		webhookRow,
	);

	/** The endpoint's last hour, filled in once read (the list does not wait for every endpoint's). */
	function healthOf(webhook: Webhook): HTMLElement {
		const cell = h('span', { class: 'health-cell muted' }, 'Reading…');
		api
			.get('/orgs/{orgId}/webhooks/{webhookId}/health', { orgId, webhookId: webhook.id })
			.then((health) => cell.replaceWith(healthCell(health)))
			.catch(() => cell.replaceChildren('Not read'));
		return cell;
	}

	function webhookRow(webhook: Webhook): HTMLTableRowElement {
		const remove = h(
			'button',
			{ type: 'button', class: 'danger', 'aria-label': `Delete endpoint ${webhook.url}` },
			'Delete',
		);
		remove.addEventListener('click', async () => {
			const sure = await confirmAction({
				title: 'Delete this endpoint?',
				body: [
					h('p', {}, h('code', { class: 'wrap' }, webhook.url)),
					h('p', {}, 'It receives nothing more; deliveries still pending are dropped.'),
				],
				confirmLabel: 'Delete endpoint',
			});
			if (!sure) return remove.focus();
			await act(remove, feedback, async () => {
				await api.delete('/orgs/{orgId}/webhooks/{webhookId}', { orgId, webhookId: webhook.id });
				announce('The endpoint was deleted.');
				await list.refresh();
			});
		});
		return row(
			h(
				'span',
				{},
				link(
					`/webhooks/${encodeURIComponent(webhook.id)}`,
					h('span', { class: 'wrap' }, webhook.url),
				),
				webhook.description ? h('span', { class: 'muted block' }, webhook.description) : null,
			),
			h('span', { class: 'wrap' }, webhook.event_types.join(', ')),
			stateBadge(webhook),
			healthOf(webhook),
			time(webhook.created_at),
			h(
				'span',
				{ class: 'row-actions' },
				link(`/webhooks/${encodeURIComponent(webhook.id)}`, 'Deliveries'),
				remove,
			),
		);
	}

	const types = await eventTypes(context);
	const secretSlot = h('div', {});
	const form = formCard({
		title: 'Create an endpoint',
		submit: 'Create endpoint',
		fields: endpointFields(types),
		send: async (values, idempotencyKey) => {
			const description = String(values.get('description') ?? '').trim();
			const created = await api.post(
				'/orgs/{orgId}/webhooks',
				{
					body: {
						url: String(values.get('url')),
						event_types: values.getAll('event_types') as EventType[],
						...(description ? { description } : {}),
					},
					idempotencyKey,
				},
				{ orgId },
			);
			replaceChildren(
				secretSlot,
				secretOnce(
					'Signing secret',
					created.secret,
					'Give it to the receiver to verify signatures. The API shows it once, and never again.',
				),
			);
			announce('The endpoint was created. Copy its signing secret now: it is shown once.');
			await list.refresh();
		},
	});

	await list.refresh();
	return h('div', {}, h('h1', {}, 'Webhooks'), feedback, secretSlot, list.element, form);
}

/**
 * Disabled (a person paused it, or it answered 410 Gone), held (its receiver, such as an n8n
 * workflow, is inactive: deliveries are kept for it) or enabled.
 */
export function stateBadge(webhook: Webhook): HTMLElement {
	if (webhook.disabled_at) return badge('disabled', 'bad');
	if (webhook.held_since) return badge('held', 'wait');
	return badge('enabled', 'good');
}

/** URL, events and description of an endpoint: for a new one, or filled with one's values to edit it. */
export function endpointFields(types: EventTypeInfo[], webhook?: Webhook): HTMLElement[] {
	return [
		field(
			'URL',
			h('input', {
				name: 'url',
				type: 'url',
				required: true,
				maxlength: 2048,
				value: webhook?.url,
			}),
			'https, on a public host, unless the server allows otherwise.',
		),
		h('fieldset', {}, h('legend', {}, 'Events'), eventTypeChecks(types, webhook?.event_types)),
		field(
			'Description (optional)',
			h('input', { name: 'description', maxlength: 1000, value: webhook?.description }),
		),
	];
}
