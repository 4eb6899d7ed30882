import { h, replaceChildren } from '../../dom.ts';
import { link } from '../../ui.ts';
import type { ViewContext } from '../context.ts';
import { eventTypes } from '../event-types.ts';
import { EndpointActions } from './actions.ts';
import { DeliveryList } from './delivery-list.ts';
import { HealthPanel } from '../health.ts';
import { facts } from './facts.ts';
import type { EndpointPageState } from './state.ts';

const LIVE_EVERY_MS = 3_000;

/**
 * One endpoint: what it is (facts), how it does (health), what a person does with it (actions: a
 * test event, a recovery, rotating its secret, disabling and enabling, editing), and its deliveries,
 * newest first, each with every attempt (the filtered live list). Every few seconds the endpoint,
 * its health and its deliveries are read again: a hold or a release by its receiver shows without
 * a reload.
 */
export async function endpointPage(context: ViewContext): Promise<HTMLElement> {
	const { api, me } = context;
	const path = { orgId: me.org.id, webhookId: context.params.id };
	const state: EndpointPageState = {
		path,
		webhook: await api.get('/orgs/{orgId}/webhooks/{webhookId}', path),
		filters: {},
		olderLoaded: false,
		enabledAfter: null,
	};
	const types = await eventTypes(context);
	context.setTitle('Deliveries · Webhooks');
	const feedback = h('div', { class: 'feedback' });
	const about = h('div', {});
	const controls = h('div', { class: 'cards' });
	const list = new DeliveryList(context, state, types, feedback);
	const health = new HealthPanel();
	const showHealth = async () =>
		health.show(await api.get('/orgs/{orgId}/webhooks/{webhookId}/health', path));
	const actions = new EndpointActions(context, state, feedback, {
		endpointChanged: () => {
			drawEndpoint();
			void list.refresh().catch(() => {});
		},
		deliveriesQueued: () => list.refresh(),
	});

	/**
	 * The forms depend on whether it is held, what it subscribes to and when it was enabled: drawn
	 * again only when one of those changes, so a live update does not empty a form being filled in.
	 */
	let controlsFor = '';
	function drawEndpoint(): void {
		replaceChildren(about, facts(state.webhook), actions.stateButton());
		const held = state.webhook.held_since !== null;
		const key = JSON.stringify([held, state.webhook.event_types, state.enabledAfter]);
		if (key === controlsFor) return;
		controlsFor = key;
		// Held, it is sent nothing until its receiver is back: no test, no recovery.
		if (held) replaceChildren(controls, actions.rotateForm());
		else
			replaceChildren(
				controls,
				actions.testForm(types),
				actions.recoverForm(),
				actions.rotateForm(),
			);
	}

	let shownWebhook = JSON.stringify(state.webhook);
	async function liveUpdate(): Promise<void> {
		const webhook = await api.get('/orgs/{orgId}/webhooks/{webhookId}', path);
		if (!context.isCurrent()) return;
		const json = JSON.stringify(webhook);
		if (json !== shownWebhook) {
			shownWebhook = json;
			state.webhook = webhook;
			drawEndpoint();
		}
		await list.refresh();
		await showHealth();
	}

	drawEndpoint();
	await Promise.all([list.refresh(), showHealth()]);
	context.every(LIVE_EVERY_MS, () => void liveUpdate().catch(() => {}));
	return h(
		'div',
		{},
		h('p', { class: 'breadcrumb' }, link('/webhooks', 'Webhooks')),
		h('h1', {}, 'Deliveries'),
		about,
		health.element,
		feedback,
		controls,
		h('h2', {}, 'Deliveries, newest first'),
		h('p', { class: 'muted' }, 'Updates by itself every few seconds while this page is open.'),
		list.element,
		actions.editForm(types),
	);
}
