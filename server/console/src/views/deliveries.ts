import type { Page } from '../api.ts';
import { h, replaceChildren, type Child } from '../dom.ts';
import { relative, time } from '../format.ts';
import type { ViewContext } from './context.ts';
import type {
	AttemptResponse,
	Delivery,
	DeliveryAttempt,
	DeliveryDetail,
	EventType,
	Webhook,
} from '../types.ts';
import {
	act,
	announce,
	badge,
	confirmAction,
	errorBox,
	field,
	formCard,
	link,
	secretOnce,
} from '../ui.ts';
import { endpointFields, eventTypes, stateBadge } from './webhooks.ts';

const LIVE_EVERY_MS = 3_000;
const PAGE_SIZE = 50;
const DAY_MS = 24 * 60 * 60 * 1000;

/** How the timeline names what started an attempt; the schedule's own tries need no name. */
const CAUSE_LABEL: Record<DeliveryAttempt['cause'], string | null> = {
	schedule: null,
	retry_after: 'asked for by the receiver (Retry-After)',
	resend: 'resent by a person',
	recovery: 'recovered by a person',
	test: 'test event',
};

const STATUS_TONE = {
	succeeded: 'good',
	failed: 'bad',
	exhausted: 'bad',
	pending: 'wait',
} as const;

/**
 * One endpoint: what it is, what a person does with it (a test event, a recovery, disabling and
 * enabling, editing), and its deliveries, newest first, each with every attempt and a Resend.
 */
export async function deliveriesPage(context: ViewContext): Promise<HTMLElement> {
	const { api, me } = context;
	const endpoint = { orgId: me.org.id, webhookId: context.params.id };
	const path = '/orgs/{orgId}/webhooks/{webhookId}';
	let webhook = await api.get(path, endpoint);
	const types = await eventTypes(context);
	context.setTitle('Deliveries · Webhooks');
	const feedback = h('div', { class: 'feedback' });
	const about = h('div', {});
	const controls = h('div', { class: 'cards' });
	const editing = h('div', {});
	const list = h('ol', { class: 'deliveries', 'aria-label': 'Deliveries, newest first' });
	const more = h('p', {});
	let shownJson = '';
	let olderLoaded = false;
	/** The list's filters, as the API takes them (`status`, `event_type`, `test`). */
	let filters: Record<string, string> = {};
	/** When the endpoint was disabled before a person enabled it here: where a recovery starts. */
	let enabledAfter: string | null = null;

	function drawEndpoint(): void {
		replaceChildren(about, facts(webhook), stateButton());
		// Held, it is sent nothing until its receiver is back: no test, no recovery.
		if (webhook.held_since) replaceChildren(controls, rotateForm());
		else replaceChildren(controls, testForm(), recoverForm(), rotateForm());
		replaceChildren(editing, editForm());
	}

	function stateButton(): HTMLElement {
		const disabled = webhook.disabled_at !== null;
		const button = h('button', { type: 'button', class: disabled ? null : 'danger' });
		button.textContent = disabled ? 'Enable endpoint' : 'Disable endpoint…';
		button.addEventListener('click', async () => {
			if (!disabled) {
				const sure = await confirmAction({
					title: 'Disable this endpoint?',
					body: [
						h('p', {}, h('code', { class: 'wrap' }, webhook.url)),
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
			await act(button, feedback, async () => {
				const before = webhook.disabled_at;
				webhook = await api.patch(path, { disabled: !disabled }, endpoint);
				enabledAfter = disabled ? before : null;
				drawEndpoint();
				announce(
					disabled
						? 'The endpoint is enabled. Recover what was given up while it was disabled below.'
						: 'The endpoint is disabled.',
				);
			});
		});
		return h('p', { class: 'actions' }, button);
	}

	function testForm(): HTMLFormElement {
		return formCard({
			title: 'Send a test event',
			submit: 'Send test event',
			fields: [
				field(
					'Event type',
					h(
						'select',
						{ name: 'event_type' },
						...webhook.event_types.map((type) => h('option', { value: type }, type)),
					),
					'A signed sample with every field of a real event and sample values (example.com addresses), marked "test": nothing in the organization changes.',
				),
			],
			send: async (values, idempotencyKey) => {
				const delivery = await api.post(
					`${path}/test`,
					{ body: { event_type: String(values.get('event_type')) as EventType }, idempotencyKey },
					endpoint,
				);
				announce(`A test ${delivery.event_type} event was queued.`);
				await drawFirstPage();
				return `A test ${delivery.event_type} event was queued; it appears below.`;
			},
		});
	}

	function recoverForm(): HTMLFormElement {
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
				const { queued } = await api.post(
					`${path}/recover`,
					{ body: { since: new Date(String(values.get('since'))).toISOString() }, idempotencyKey },
					endpoint,
				);
				const said =
					queued === 0
						? 'Nothing to recover: no delivery since then failed or was given up.'
						: `${queued} ${queued === 1 ? 'delivery was' : 'deliveries were'} queued again.`;
				announce(said);
				await drawFirstPage();
				return said;
			},
		});
	}

	function rotateForm(): HTMLFormElement {
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
				const rotated = await api.post(
					`${path}/rotate-secret`,
					{
						body: endsNow ? { old_secret_expires_at: new Date().toISOString() } : {},
						idempotencyKey,
					},
					endpoint,
				);
				const { secret, ...rest } = rotated;
				webhook = rest;
				replaceChildren(about, facts(webhook), stateButton());
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

	function editForm(): HTMLFormElement {
		return formCard({
			title: 'Edit the endpoint',
			submit: 'Save changes',
			fields: endpointFields(types, webhook),
			send: async (values) => {
				webhook = await api.patch(
					path,
					{
						url: String(values.get('url')),
						event_types: values.getAll('event_types') as EventType[],
						description: String(values.get('description') ?? '').trim() || null,
					},
					endpoint,
				);
				drawEndpoint();
				announce('The endpoint was changed.');
			},
		});
	}

	async function drawFirstPage(): Promise<void> {
		const page = await api.page(
			`${path}/deliveries`,
			{ query: { ...filters, limit: PAGE_SIZE } },
			endpoint,
		);
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
					Object.keys(filters).length > 0
						? 'No delivery matches these filters.'
						: 'No deliveries yet. Events this endpoint subscribes to appear here.',
				),
			);
		drawMore(page);
	}

	function drawMore(page: Page<Delivery>): void {
		if (!page.next) return replaceChildren(more);
		const button = h('button', { type: 'button' }, 'Show older deliveries');
		button.addEventListener('click', async () => {
			olderLoaded = true;
			const older = await api.page(
				`${path}/deliveries`,
				{ query: { ...filters, limit: PAGE_SIZE }, cursor: page.next },
				endpoint,
			);
			list.append(...older.items.map(deliveryItem));
			drawMore(older);
		});
		replaceChildren(more, button);
	}

	function filterForm(): HTMLFormElement {
		const choice = (name: string, label: string, options: Array<[string, string]>) =>
			h(
				'label',
				{},
				label,
				' ',
				h('select', { name }, ...options.map(([value, text]) => h('option', { value }, text))),
			);
		const form = h(
			'form',
			{ class: 'filters', 'aria-label': 'Filter deliveries' },
			choice('status', 'Status', [
				['', 'Any'],
				['failed,exhausted', 'Failed or given up'],
				['failed', 'Failed, retrying'],
				['exhausted', 'Given up'],
				['pending', 'Pending'],
				['succeeded', 'Succeeded'],
			]),
			choice('event_type', 'Events of type', [
				['', 'Any'],
				...webhook.event_types.map((type): [string, string] => [type, type]),
			]),
			choice('test', 'Test events', [
				['', 'Included'],
				['true', 'Only'],
				['false', 'Left out'],
			]),
			h('button', { type: 'submit' }, 'Filter'),
		);
		form.addEventListener('submit', (event) => {
			event.preventDefault();
			const values = new FormData(form);
			filters = Object.fromEntries(
				[...values.entries()].filter(([, value]) => value !== '') as Array<[string, string]>,
			);
			olderLoaded = false;
			shownJson = '';
			void act(form.querySelector('button')!, feedback, drawFirstPage);
		});
		return form;
	}

	function deliveryItem(delivery: Delivery): HTMLLIElement {
		const held = webhook.held_since !== null;
		const item = deliveryView(delivery, held, () =>
			api.get(`${path}/deliveries/{deliveryId}`, { ...endpoint, deliveryId: delivery.id }),
		);
		if (held) return item; // nothing is sent until its receiver is back
		const resend = h(
			'button',
			{ type: 'button', class: 'quiet', 'aria-describedby': `delivery-${delivery.id}` },
			'Resend',
		);
		resend.addEventListener('click', () =>
			act(resend, feedback, async () => {
				await api.post(
					`${path}/deliveries/{deliveryId}/resend`,
					{},
					{
						...endpoint,
						deliveryId: delivery.id,
					},
				);
				announce(`The ${delivery.event_type} event is being sent again.`);
				await drawFirstPage();
			}),
		);
		item.append(h('p', { class: 'actions' }, resend));
		return item;
	}

	drawEndpoint();
	await drawFirstPage();
	context.every(LIVE_EVERY_MS, () => {
		if (!olderLoaded) void drawFirstPage().catch(() => {});
	});
	return h(
		'div',
		{},
		h('p', { class: 'breadcrumb' }, link('/webhooks', 'Webhooks')),
		h('h1', {}, 'Deliveries'),
		about,
		feedback,
		controls,
		h('h2', {}, 'Deliveries, newest first'),
		h('p', { class: 'muted' }, 'Updates by itself every few seconds while this page is open.'),
		filterForm(),
		list,
		more,
		editing,
	);
}

function facts(webhook: Webhook): HTMLElement {
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
				'Its receiver is inactive (an n8n workflow deactivated): events are kept and sent when it is back. Test events and recoveries wait until then.',
			),
		];
	return [];
}

/** An instant as a `datetime-local` input shows it: the browser's local time, to the second. */
function localInputValue(iso: string): string {
	const date = new Date(iso);
	const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
	return local.toISOString().slice(0, 19);
}

/**
 * One delivery with its attempts; `held`: its endpoint keeps it until its receiver is back; `load`
 * fetches the receiver's answers (once, when a person first opens one).
 */
function deliveryView(
	delivery: Delivery,
	held: boolean,
	load: () => Promise<DeliveryDetail>,
): HTMLLIElement {
	const headingId = `delivery-${delivery.id}`;
	let detail: Promise<DeliveryDetail> | null = null;
	const answerOf = async (attempt: number) => {
		detail ??= load();
		return (await detail).attempt_log.find((logged) => logged.attempt === attempt)?.response;
	};
	const steps = delivery.attempt_log.map((attempt) => attemptStep(attempt, answerOf));
	if (delivery.status === 'pending' && delivery.attempt_log.length === 0)
		steps.push(
			h(
				'li',
				{ class: 'attempt attempt-wait' },
				h('span', { class: 'mark', 'aria-hidden': 'true' }, '…'),
				h('span', {}, 'Waiting for its first attempt'),
			),
		);
	if (delivery.next_attempt_at && held)
		steps.push(
			h(
				'li',
				{ class: 'attempt attempt-wait' },
				h('span', { class: 'mark', 'aria-hidden': 'true' }, '‖'),
				h('span', { class: 'attempt-title' }, 'Held'),
				h('span', {}, 'sent when its receiver is back'),
			),
		);
	else if (delivery.next_attempt_at)
		steps.push(
			h(
				'li',
				{ class: 'attempt attempt-wait' },
				h('span', { class: 'mark', 'aria-hidden': 'true' }, '↻'),
				h('span', { class: 'attempt-title' }, 'Next retry'),
				h('span', {}, time(delivery.next_attempt_at), ` (${relative(delivery.next_attempt_at)})`),
			),
		);
	const counts = [
		`${delivery.attempts} ${delivery.attempts === 1 ? 'attempt' : 'attempts'}`,
		delivery.resends > 0 ? `resent ${delivery.resends}×` : null,
	].filter(Boolean);
	return h(
		'li',
		{ class: 'delivery', 'aria-labelledby': headingId },
		h(
			'h3',
			{ class: 'delivery-head', id: headingId },
			h('span', {}, delivery.event_type),
			' ',
			badge(delivery.status, STATUS_TONE[delivery.status]),
			delivery.test ? badge('test event') : null,
			' ',
			h('span', { class: 'muted small' }, counts.join(' · ')),
		),
		h(
			'p',
			{ class: 'muted small' },
			'Event ',
			h('code', {}, delivery.event_id),
			' of ',
			time(delivery.event_occurred_at),
		),
		givenUpWithoutAttempt(delivery)
			? h('p', { class: 'attempt-error' }, delivery.last_error)
			: null,
		h(
			'ol',
			{ class: 'attempts', 'aria-label': `Attempts of the ${delivery.event_type} delivery` },
			...steps,
		),
	);
}

/** A delivery given up for a reason no attempt shows (its endpoint was disabled). */
function givenUpWithoutAttempt(delivery: Delivery): boolean {
	return (
		delivery.status === 'exhausted' &&
		delivery.last_error !== null &&
		delivery.last_error !== delivery.attempt_log.at(-1)?.error
	);
}

function attemptStep(
	attempt: DeliveryAttempt,
	answerOf: (attempt: number) => Promise<AttemptResponse | null | undefined>,
): HTMLLIElement {
	const ok = attempt.error === null;
	const outcome = attempt.status_code === null ? 'no answer' : `HTTP ${attempt.status_code}`;
	// The error repeats the status ("HTTP 503: down for maintenance"): only what it adds is shown.
	const detail = attempt.error?.startsWith(outcome)
		? attempt.error.slice(outcome.length).replace(/^[:\s]*/, '')
		: attempt.error;
	const cause = CAUSE_LABEL[attempt.cause];
	return h(
		'li',
		{ class: `attempt ${ok ? 'attempt-ok' : 'attempt-bad'}` },
		h('span', { class: 'mark', 'aria-hidden': 'true' }, ok ? '✓' : '✕'),
		h(
			'span',
			{ class: 'attempt-title' },
			`Attempt ${attempt.attempt}: ${ok ? 'delivered' : 'failed'}`,
		),
		cause ? h('span', { class: 'muted small' }, cause) : null,
		h('span', {}, time(attempt.attempted_at, 'time'), ` · ${attempt.duration_ms} ms · ${outcome}`),
		detail ? h('span', { class: 'attempt-error' }, detail) : null,
		attempt.status_code === null ? null : answerDisclosure(attempt.attempt, answerOf),
	);
}

/** The receiver's answer to one attempt, fetched when a person first opens it. */
function answerDisclosure(
	attempt: number,
	answerOf: (attempt: number) => Promise<AttemptResponse | null | undefined>,
): HTMLDetailsElement {
	const body = h('div', { class: 'answer' }, 'Loading…');
	const disclosure = h('details', {}, h('summary', {}, "Receiver's answer"), body);
	let loaded = false;
	disclosure.addEventListener('toggle', async () => {
		if (!disclosure.open || loaded) return;
		loaded = true;
		try {
			const response = await answerOf(attempt);
			if (!response) return replaceChildren(body, 'Not kept.');
			const headers = Object.entries(response.headers);
			replaceChildren(
				body,
				headers.length > 0
					? h(
							'dl',
							{ class: 'answer-headers' },
							...headers.flatMap(([name, value]) => [
								h('dt', {}, name),
								h('dd', {}, h('code', { class: 'wrap' }, value)),
							]),
						)
					: null,
				response.body === ''
					? h('p', { class: 'muted' }, 'An empty body.')
					: h('pre', { class: 'answer-body' }, response.body),
				response.body_truncated
					? h('p', { class: 'muted small' }, 'Cut at 4 KB: the receiver sent more.')
					: null,
			);
		} catch (error) {
			loaded = false;
			replaceChildren(body, errorBox(error));
		}
	});
	return disclosure;
}
