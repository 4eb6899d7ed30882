import { h } from '../../dom.ts';
import type { EventType, EventTypeInfo } from '../../types.ts';
import { act, announce, confirmAction, field, formCard, secretOnce } from '../../ui.ts';
import type { ViewContext } from '../context.ts';
import { eventTypeSelect } from '../event-types.ts';
import { endpointFields } from '../webhooks.ts';
import type { EndpointPageState } from './state.ts';

const ENDPOINT = '/orgs/{orgId}/webhooks/{webhookId}';
const DAY_MS = 24 * 60 * 60 * 1000;

/** What the actions tell the page: the endpoint changed (redraw it), deliveries were queued (refresh the list). */
export interface ActionHooks {
	endpointChanged(): void;
	deliveriesQueued(): Promise<void>;
}

/** What a person does with the endpoint; each reads and updates the page's state. */
export class EndpointActions {
	readonly #context: ViewContext;
	readonly #state: EndpointPageState;
	readonly #feedback: HTMLElement;
	readonly #hooks: ActionHooks;

	constructor(
		context: ViewContext,
		state: EndpointPageState,
		feedback: HTMLElement,
		hooks: ActionHooks,
	) {
		this.#context = context;
		this.#state = state;
		this.#feedback = feedback;
		this.#hooks = hooks;
	}

	/** Disable (after a confirmation) or enable. */
	stateButton(): HTMLElement {
		const { api } = this.#context;
		const disabled = this.#state.webhook.disabled_at !== null;
		const button = h('button', { type: 'button', class: disabled ? null : 'danger' });
		button.textContent = disabled ? 'Enable endpoint' : 'Disable endpoint…';
		button.addEventListener('click', async () => {
			if (!disabled) {
				const sure = await confirmAction({
					title: 'Disable this endpoint?',
					body: [
						h('p', {}, h('code', { class: 'wrap' }, this.#state.webhook.url)),
						h(
							'p',
							{},
							'It receives nothing until it is enabled again. Deliveries still pending are given up, and events meanwhile are kept as given-up deliveries: recover them once it is back.',
						),
					],
					confirmLabel: 'Disable endpoint',
				});
				if (!sure) return button.focus();
			}
			await act(button, this.#feedback, async () => {
				const before = this.#state.webhook.disabled_at;
				this.#state.webhook = await api.patch(ENDPOINT, { disabled: !disabled }, this.#state.path);
				this.#state.enabledAfter = disabled ? before : null;
				this.#hooks.endpointChanged();
				announce(
					disabled
						? 'The endpoint is enabled. Recover what was given up while it was disabled below.'
						: 'The endpoint is disabled.',
				);
			});
		});
		return h('p', { class: 'actions' }, button);
	}

	/** A test event of a type the endpoint subscribes to, each type with what it means. */
	testForm(types: EventTypeInfo[]): HTMLFormElement {
		const subscribed = types.filter(({ type }) => this.#state.webhook.event_types.includes(type));
		const type = eventTypeSelect('event_type', subscribed);
		return formCard({
			title: 'Send a test event',
			submit: 'Send test event',
			fields: [
				field(
					'Event type',
					type.select,
					'A signed sample with every field of a real event and sample values (example.com addresses), marked "test": nothing in the organization changes.',
				),
				type.described,
			],
			send: async (values, idempotencyKey) => {
				const delivery = await this.#context.api.post(
					`${ENDPOINT}/test`,
					{ body: { event_type: String(values.get('event_type')) as EventType }, idempotencyKey },
					this.#state.path,
				);
				announce(`A test ${delivery.event_type} event was queued.`);
				await this.#hooks.deliveriesQueued();
				return `A test ${delivery.event_type} event was queued; it appears below.`;
			},
		});
	}

	recoverForm(): HTMLFormElement {
		const { enabledAfter } = this.#state;
		const since = enabledAfter ?? new Date(Date.now() - DAY_MS).toISOString();
		return formCard({
			title: 'Recover failed deliveries',
			submit: 'Recover deliveries',
			fields: [
				field(
					'Since',
					h('input', {
						name: 'since',
						type: 'datetime-local',
						required: true,
						step: 1,
						value: localInputValue(since),
					}),
					enabledAfter
						? 'From when it was disabled: every delivery given up while it was, and every failed one since, is sent again.'
						: 'Every delivery of an event since then that failed or was given up is sent again, on a fresh retry schedule.',
				),
			],
			send: async (values, idempotencyKey) => {
				const { queued } = await this.#context.api.post(
					`${ENDPOINT}/recover`,
					{ body: { since: new Date(String(values.get('since'))).toISOString() }, idempotencyKey },
					this.#state.path,
				);
				const said =
					queued === 0
						? 'Nothing to recover: no delivery since then failed or was given up.'
						: `${queued} ${queued === 1 ? 'delivery was' : 'deliveries were'} queued again.`;
				announce(said);
				await this.#hooks.deliveriesQueued();
				return said;
			},
		});
	}

	rotateForm(): HTMLFormElement {
		return formCard({
			title: 'Rotate the signing secret',
			submit: 'Rotate secret',
			fields: [
				field(
					'The old secret',
					h(
						'select',
						{ name: 'old_secret' },
						h('option', { value: 'day' }, 'Goes on signing for 24 hours'),
						h('option', { value: 'now' }, 'Stops now (it leaked)'),
					),
					'Until it stops, every delivery carries a signature with each secret, so the receiver verifies while you give it the new one.',
				),
			],
			send: async (values, idempotencyKey) => {
				const endsNow = values.get('old_secret') === 'now';
				const rotated = await this.#context.api.post(
					`${ENDPOINT}/rotate-secret`,
					{
						body: endsNow ? { old_secret_expires_at: new Date().toISOString() } : {},
						idempotencyKey,
					},
					this.#state.path,
				);
				const { secret, ...webhook } = rotated;
				this.#state.webhook = webhook;
				this.#hooks.endpointChanged();
				announce('The secret was replaced. Copy the new one now: it is shown once.');
				return secretOnce(
					'Signing secret',
					secret,
					endsNow
						? 'Deliveries are signed with this secret only, from now on. The API shows it once, and never again.'
						: 'Give it to the receiver now; the old secret stops signing in 24 hours. The API shows it once, and never again.',
				);
			},
		});
	}

	editForm(types: EventTypeInfo[]): HTMLFormElement {
		return formCard({
			title: 'Edit the endpoint',
			submit: 'Save changes',
			fields: endpointFields(types, this.#state.webhook),
			send: async (values) => {
				this.#state.webhook = await this.#context.api.patch(
					ENDPOINT,
					{
						url: String(values.get('url')),
						event_types: values.getAll('event_types') as EventType[],
						description: String(values.get('description') ?? '').trim() || null,
					},
					this.#state.path,
				);
				this.#hooks.endpointChanged();
				announce('The endpoint was changed.');
			},
		});
	}
}

/** An instant as a `datetime-local` input shows it: the browser's local time, to the second. */
function localInputValue(iso: string): string {
	const date = new Date(iso);
	const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
	return local.toISOString().slice(0, 19);
}
