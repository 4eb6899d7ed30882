import { h, type Child } from '../../dom.ts';
import { time } from '../../format.ts';
import type { Webhook } from '../../types.ts';
import { stateBadge } from '../webhooks.ts';

/** What the endpoint is: its URL, description, events, state, signing and what counts as delivered. */
export function facts(webhook: Webhook): HTMLElement {
	return h(
		'dl',
		{ class: 'facts' },
		h('dt', {}, 'Endpoint'),
		h('dd', {}, h('code', { class: 'wrap' }, webhook.url)),
		webhook.description ? h('dt', {}, 'Description') : null,
		webhook.description ? h('dd', {}, webhook.description) : null,
		h('dt', {}, 'Events'),
		h('dd', {}, webhook.event_types.join(', ')),
		h('dt', {}, 'State'),
		h('dd', {}, stateBadge(webhook), ...stateDetail(webhook)),
		webhook.previous_secret_expires_at ? h('dt', {}, 'Signing') : null,
		webhook.previous_secret_expires_at
			? h(
					'dd',
					{},
					'with the new secret and the old one, until ',
					time(webhook.previous_secret_expires_at),
				)
			: null,
		webhook.require_receipt ? h('dt', {}, 'Delivered when') : null,
		webhook.require_receipt
			? h(
					'dd',
					{},
					"the receiver answers 2xx with the delivery's receipt (it registered itself, as the n8n trigger does): any other answer is retried",
				)
			: null,
	);
}

function stateDetail(webhook: Webhook): Child[] {
	if (webhook.disabled_at) return [' since ', time(webhook.disabled_at)];
	if (webhook.held_since)
		return [
			' since ',
			time(webhook.held_since),
			h(
				'span',
				{ class: 'muted block' },
				webhook.held_reason === null
					? 'Its receiver is inactive (an n8n workflow deactivated): events are kept and sent when it is back. Test events and recoveries wait until then.'
					: `Held by the server: ${webhook.held_reason}`,
			),
		];
	return [];
}
