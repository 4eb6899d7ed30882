import { h, replaceChildren, type Child } from '../../dom.ts';
import { relative, time } from '../../format.ts';
import type { AttemptResponse, Delivery, DeliveryAttempt, DeliveryDetail } from '../../types.ts';
import { badge, errorBox } from '../../ui.ts';

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
 * One delivery in the list: its event, state and every attempt. Updated in place when the delivery
 * changes: an attempt already shown keeps its element, so a receiver's answer a person opened stays
 * open (and is not fetched again) while new attempts are added.
 */
export class DeliveryRow {
	readonly element: HTMLLIElement;
	readonly #load: () => Promise<DeliveryDetail>;
	/** The attempts shown, by number: recorded attempts do not change. */
	readonly #steps = new Map<number, HTMLLIElement>();
	/** The answers, fetched when a person first opens one; again only for attempts they lack. */
	#detail: Promise<DeliveryDetail> | null = null;
	#shown = '';
	readonly #head = h('div', {});
	readonly #attempts: HTMLOListElement;
	readonly #after = h('div', {});

	constructor(delivery: Delivery, load: () => Promise<DeliveryDetail>) {
		this.#load = load;
		this.#attempts = h('ol', {
			class: 'attempts',
			'aria-label': `Attempts of the ${delivery.event_type} delivery`,
		});
		this.element = h(
			'li',
			{ class: 'delivery', 'aria-labelledby': headingIdOf(delivery) },
			this.#head,
			this.#attempts,
			this.#after,
		);
	}

	/** Shows the delivery as it is now (`held`: its endpoint keeps it); `actions` go below it. */
	update(delivery: Delivery, held: boolean, actions: HTMLElement | null): void {
		const shown = JSON.stringify([delivery, held]);
		if (shown === this.#shown) return;
		this.#shown = shown;
		replaceChildren(this.#head, ...heading(delivery));
		const steps = delivery.attempt_log.map((attempt) => this.#stepOf(attempt));
		replaceChildren(this.#attempts, ...steps, waiting(delivery, held));
		replaceChildren(this.#after, actions);
	}

	#stepOf(attempt: DeliveryAttempt): HTMLLIElement {
		let step = this.#steps.get(attempt.attempt);
		if (!step) {
			step = attemptStep(attempt, (number) => this.#answerOf(number));
			this.#steps.set(attempt.attempt, step);
		}
		return step;
	}

	async #answerOf(attempt: number): Promise<AttemptResponse | null | undefined> {
		const find = async () =>
			(await this.#detail!).attempt_log.find((logged) => logged.attempt === attempt);
		this.#detail ??= this.#load();
		if (!(await find())) this.#detail = this.#load(); // an attempt made since the last fetch
		return (await find())?.response;
	}
}

const headingIdOf = (delivery: Delivery) => `delivery-${delivery.id}`;

function heading(delivery: Delivery): HTMLElement[] {
	const counts = [
		`${delivery.attempts} ${delivery.attempts === 1 ? 'attempt' : 'attempts'}`,
		delivery.resends > 0 ? `resent ${delivery.resends}×` : null,
	].filter(Boolean);
	return [
		h(
			'h3',
			{ class: 'delivery-head', id: headingIdOf(delivery) },
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
		...(givenUpWithoutAttempt(delivery)
			? [h('p', { class: 'attempt-error' }, delivery.last_error)]
			: []),
	];
}

/** What comes next for the delivery, if anything: its first attempt, its next retry, or a hold. */
function waiting(delivery: Delivery, held: boolean): HTMLLIElement | null {
	const step = (mark: string, title: string, ...text: Child[]) =>
		h(
			'li',
			{ class: 'attempt attempt-wait' },
			h('span', { class: 'mark', 'aria-hidden': 'true' }, mark),
			h('span', { class: 'attempt-title' }, title),
			h('span', {}, ...text),
		);
	if (delivery.status === 'pending' && delivery.attempt_log.length === 0 && !held)
		return step('…', 'Waiting for its first attempt');
	if (delivery.next_attempt_at && held) return step('‖', 'Held', 'sent when its receiver is back');
	if (delivery.next_attempt_at)
		return step(
			'↻',
			'Next retry',
			time(delivery.next_attempt_at),
			` (${relative(delivery.next_attempt_at)})`,
		);
	return null;
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
