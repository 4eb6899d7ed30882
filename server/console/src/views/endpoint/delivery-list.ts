import type { Page } from '../../api.ts';
import { h, replaceChildren } from '../../dom.ts';
import type { Delivery, EventTypeInfo } from '../../types.ts';
import { act, announce } from '../../ui.ts';
import { eventTypeSelect } from '../event-types.ts';
import type { ViewContext } from '../context.ts';
import { DeliveryRow } from './delivery-row.ts';
import type { EndpointPageState } from './state.ts';

const PAGE_SIZE = 50;

/**
 * The endpoint's deliveries, newest first, as the filters choose them, kept up to date: `refresh`
 * reads the first page again and changes only the deliveries that changed, in place (so what a
 * person opened stays open), adding new ones at the top. While older pages are shown it waits.
 */
export class DeliveryList {
	readonly element: HTMLElement;
	readonly #context: ViewContext;
	readonly #state: EndpointPageState;
	readonly #feedback: HTMLElement;
	readonly #list = h('ol', { class: 'deliveries', 'aria-label': 'Deliveries, newest first' });
	readonly #more = h('p', {});
	readonly #rows = new Map<string, DeliveryRow>();
	readonly #empty = h('li', { class: 'empty' });

	constructor(
		context: ViewContext,
		state: EndpointPageState,
		types: EventTypeInfo[],
		feedback: HTMLElement,
	) {
		this.#context = context;
		this.#state = state;
		this.#feedback = feedback;
		this.element = h('div', {}, this.#filterForm(types), this.#list, this.#more);
	}

	/** Reads the first page again and shows what changed. */
	async refresh(): Promise<void> {
		if (this.#state.olderLoaded) return;
		const page = await this.#page();
		if (!this.#context.isCurrent()) return;
		this.#show(page.items, true);
		this.#drawMore(page);
	}

	#page(cursor: string | null = null): Promise<Page<Delivery>> {
		const { api } = this.#context;
		const query = { ...this.#state.filters, limit: PAGE_SIZE };
		return api.page(`${ENDPOINT}/deliveries`, { query, cursor }, this.#state.path);
	}

	/** Shows `deliveries` in this order: each row updated in place, new ones added, the others gone. */
	#show(deliveries: Delivery[], firstPage: boolean): void {
		const rows = deliveries.map((delivery) => {
			let row = this.#rows.get(delivery.id);
			if (!row) {
				row = new DeliveryRow(delivery, () => this.#detail(delivery));
				this.#rows.set(delivery.id, row);
			}
			row.update(delivery, this.#state.webhook.held_since !== null, this.#actionsOf(delivery));
			return row.element;
		});
		if (!firstPage) return this.#list.append(...rows);
		// Only what moved is moved: an element taken out and put back would lose a reader's focus.
		rows.forEach((element, index) => {
			if (this.#list.children[index] !== element)
				this.#list.insertBefore(element, this.#list.children[index] ?? null);
		});
		while (this.#list.children.length > rows.length) this.#list.lastElementChild!.remove();
		for (const [id, row] of this.#rows)
			if (row.element.parentElement !== this.#list) this.#rows.delete(id);
		if (rows.length === 0) {
			this.#empty.textContent =
				Object.keys(this.#state.filters).length > 0
					? 'No delivery matches these filters.'
					: 'No deliveries yet. Events this endpoint subscribes to appear here.';
			this.#list.append(this.#empty);
		}
	}

	#detail(delivery: Delivery) {
		const { api } = this.#context;
		return api.get(`${ENDPOINT}/deliveries/{deliveryId}`, {
			...this.#state.path,
			deliveryId: delivery.id,
		});
	}

	/** Resend, unless the endpoint holds its deliveries (nothing is sent until its receiver is back). */
	#actionsOf(delivery: Delivery): HTMLElement | null {
		if (this.#state.webhook.held_since !== null) return null;
		const resend = h(
			'button',
			{ type: 'button', class: 'quiet', 'aria-describedby': `delivery-${delivery.id}` },
			'Resend',
		);
		resend.addEventListener('click', () =>
			act(resend, this.#feedback, async () => {
				await this.#context.api.post(
					`${ENDPOINT}/deliveries/{deliveryId}/resend`,
					{},
					{ ...this.#state.path, deliveryId: delivery.id },
				);
				announce(`The ${delivery.event_type} event is being sent again.`);
				await this.refresh();
			}),
		);
		return h('p', { class: 'actions' }, resend);
	}

	#drawMore(page: Page<Delivery>): void {
		if (!page.next) return replaceChildren(this.#more);
		const button = h('button', { type: 'button' }, 'Show older deliveries');
		button.addEventListener('click', async () => {
			this.#state.olderLoaded = true;
			const older = await this.#page(page.next);
			this.#show(older.items, false);
			this.#drawMore(older);
		});
		replaceChildren(this.#more, button);
	}

	/** Status, event type (every type the API knows: a type since unsubscribed still has deliveries) and test events. */
	#filterForm(types: EventTypeInfo[]): HTMLFormElement {
		const choice = (label: string, select: HTMLSelectElement, ...after: HTMLElement[]) =>
			h('label', { class: 'filter' }, label, ' ', select, ...after);
		const options = (name: string, values: Array<[string, string]>) =>
			h('select', { name }, ...values.map(([value, text]) => h('option', { value }, text)));
		const type = eventTypeSelect('event_type', types, [['', 'Any']]);
		const form = h(
			'form',
			{ class: 'filters', 'aria-label': 'Filter deliveries' },
			choice(
				'Status',
				options('status', [
					['', 'Any'],
					['failed,exhausted', 'Failed or given up'],
					['failed', 'Failed, retrying'],
					['exhausted', 'Given up'],
					['pending', 'Pending'],
					['succeeded', 'Succeeded'],
				]),
			),
			choice('Events of type', type.select, type.described),
			choice(
				'Test events',
				options('test', [
					['', 'Included'],
					['true', 'Only'],
					['false', 'Left out'],
				]),
			),
			h('button', { type: 'submit' }, 'Filter'),
		);
		form.addEventListener('submit', (event) => {
			event.preventDefault();
			const values = new FormData(form);
			this.#state.filters = Object.fromEntries(
				[...values.entries()].filter(([, value]) => value !== '') as Array<[string, string]>,
			);
			this.#state.olderLoaded = false;
			void act(form.querySelector('button')!, this.#feedback, () => this.refresh());
		});
		return form;
	}
}

const ENDPOINT = '/orgs/{orgId}/webhooks/{webhookId}';
