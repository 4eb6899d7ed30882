import type { AttemptOutcome, DueDelivery, SendOutcome } from './types.ts';

const JITTER = 0.1;
/** Early retries a receiver may ask for (`Retry-After`) within one step of the schedule. */
export const MAX_EARLY_RETRIES_PER_STEP = 10;
/** The shortest wait a `Retry-After` is taken to ask for. */
const MIN_RETRY_AFTER_MS = 1000;

/** How a delivery stands after an attempt: what `AttemptOutcome` holds beyond the attempt itself. */
export type NextState = Pick<
	AttemptOutcome,
	'status' | 'next_attempt_at' | 'schedule_start' | 'step_due_at' | 'early_retries' | 'next_cause'
>;

/** What a delivery's next attempt starts with when nothing special is asked: the schedule's own step. */
const FRESH_STEP = { step_due_at: null, early_retries: 0, next_cause: 'schedule' } as const;

/**
 * When a delivery is tried again: after each step of `scheduleSeconds` (±10%), or sooner where the
 * receiver asks for it. Pure: the time and the randomness come in.
 */
export class RetryRules {
	readonly #scheduleSeconds: readonly number[];
	/** The longest a `Retry-After` may make a delivery wait: the schedule's longest step. */
	readonly #maxRetryAfterMs: number;
	readonly #random: () => number;

	constructor(scheduleSeconds: readonly number[], random: () => number = Math.random) {
		this.#scheduleSeconds = scheduleSeconds;
		this.#maxRetryAfterMs = Math.max(...scheduleSeconds) * 1000;
		this.#random = random;
	}

	/**
	 * The state after an attempt that came to `outcome` at `now`. Delivered: succeeded; gone: given
	 * up; not registered (its endpoint now held): due on release, no step used. A failure takes the schedule's next step, unless the receiver asked (`retry_after`) to be
	 * tried again sooner than that step falls due: then it is, without using up the step, at most
	 * `MAX_EARLY_RETRIES_PER_STEP` times. A `Retry-After` later than the step delays it, capped at the
	 * schedule's longest step. The schedule still ends: a receiver's answers can neither give up a
	 * delivery early nor keep it retrying without end.
	 */
	after(
		delivery: Pick<DueDelivery, 'attempts' | 'schedule_start' | 'step_due_at' | 'early_retries'>,
		outcome: SendOutcome,
		now: number,
	): NextState {
		const counted = { ...FRESH_STEP, schedule_start: delivery.schedule_start };
		if (outcome.kind === 'delivered')
			return { ...counted, status: 'succeeded', next_attempt_at: null };
		if (outcome.kind === 'gone') return { ...counted, status: 'exhausted', next_attempt_at: null };
		// Its endpoint is held now: due again as soon as it is released, the attempt using up no step.
		if (outcome.kind === 'not_registered')
			return {
				status: 'failed',
				next_attempt_at: now,
				schedule_start: delivery.schedule_start + 1,
				step_due_at: delivery.step_due_at,
				early_retries: delivery.early_retries,
				next_cause: 'schedule',
			};
		const step = delivery.attempts + 1 - delivery.schedule_start;
		const delayMs = retryDelayMs(this.#scheduleSeconds, step, this.#random);
		if (delayMs === null) return { ...counted, status: 'exhausted', next_attempt_at: null };
		const stepDueAt = delivery.step_due_at ?? now + delayMs;
		const askedMs =
			outcome.kind === 'retry_after'
				? Math.min(this.#maxRetryAfterMs, Math.max(MIN_RETRY_AFTER_MS, outcome.afterMs))
				: null;
		if (
			askedMs !== null &&
			now + askedMs < stepDueAt &&
			delivery.early_retries < MAX_EARLY_RETRIES_PER_STEP
		)
			return {
				status: 'failed',
				next_attempt_at: now + askedMs,
				schedule_start: delivery.schedule_start + 1,
				step_due_at: stepDueAt,
				early_retries: delivery.early_retries + 1,
				next_cause: 'retry_after',
			};
		return {
			...counted,
			status: 'failed',
			next_attempt_at: Math.max(stepDueAt, askedMs === null ? 0 : now + askedMs),
		};
	}
}

/**
 * Delay before the next try after `attempts` failed ones: the schedule's entry ±10%, so that many
 * deliveries failing together do not all retry in the same instant; null once the schedule is used up.
 */
export function retryDelayMs(
	scheduleSeconds: readonly number[],
	attempts: number,
	random: () => number = Math.random,
): number | null {
	const delaySeconds = scheduleSeconds[attempts - 1];
	if (delaySeconds === undefined) return null;
	return Math.round(delaySeconds * 1000 * (1 + JITTER * (2 * random() - 1)));
}
