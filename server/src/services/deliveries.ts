import { isoAt } from '../core/clock.ts';
import { systemActor } from '../core/actor.ts';
import type { AttemptOutcome, DueDelivery, KeptResponse } from '../repositories/deliveries.ts';
import { DomainService, type ServiceDeps } from './domain-service.ts';

const JITTER = 0.1;
/** Deliveries a recovery queues per transaction: short enough that requests between barely wait. */
export const RECOVERY_BATCH = 100;
/** Early retries a receiver may ask for (`Retry-After`) within one step of the schedule. */
export const MAX_EARLY_RETRIES_PER_STEP = 10;
/** The shortest wait a `Retry-After` is taken to ask for. */
const MIN_RETRY_AFTER_MS = 1000;

/** The outcome of one attempt to send a delivery. */
export interface AttemptResult {
	/** HTTP status, or null when none was received. */
	statusCode: number | null;
	/** Why the attempt failed, or null when it delivered. */
	error: string | null;
	/** The receiver's answer as kept, or null when none came. */
	response: KeptResponse | null;
}

/** How the delivery stands after an attempt: what `AttemptOutcome` holds beyond the attempt itself. */
type NextState = Pick<
	AttemptOutcome,
	'status' | 'next_attempt_at' | 'schedule_start' | 'step_due_at' | 'early_retries' | 'next_cause'
>;

/** An attempt that has its outcome: when it started and ended (Unix ms), and how it went. */
export interface Answer {
	delivery: DueDelivery;
	result: AttemptResult;
	startedAt: number;
	endedAt: number;
}

/**
 * The rules of the webhook outbox: which deliveries are due, claims so that no two sends overlap,
 * and what each attempt's outcome means (success, retry with jitter, exhaustion, or — on 410 Gone —
 * the endpoint disabled, recorded in the activity log as `webhook.disabled`).
 */
export class DeliveryService extends DomainService {
	readonly #retryScheduleSeconds: readonly number[];
	/** The longest a `Retry-After` may make a delivery wait: the schedule's longest step. */
	readonly #maxRetryAfterMs: number;
	readonly #random: () => number;
	/** Advanced by each claim, so that each starts with another organization and endpoint. */
	#rotation = 0;

	constructor(
		deps: ServiceDeps,
		options: { retryScheduleSeconds: readonly number[]; random?: () => number },
	) {
		super(deps);
		this.#retryScheduleSeconds = options.retryScheduleSeconds;
		this.#maxRetryAfterMs = Math.max(...options.retryScheduleSeconds) * 1000;
		this.#random = options.random ?? Math.random;
	}

	/** After a restart no send is in flight: every claim is stale, and those deliveries are sent again. */
	releaseAllClaims(): void {
		this.repos.deliveries.releaseAllClaims();
	}

	/**
	 * Claims due deliveries for `leaseMs`, so no one else sends them meanwhile: organization by
	 * organization, then endpoint by endpoint, starting with a different one each time; at most
	 * `slotsOf(endpoint)` of each endpoint, `orgSlotsOf(organization)` of each organization and
	 * `total` in all. Each organization first gets its share of `total`, then what others left. So
	 * one organization's many endpoints, or one endpoint's long backlog, go at their own pace and
	 * hold up no one else's deliveries.
	 */
	claimDue(
		total: number,
		slotsOf: (webhookId: string) => number,
		leaseMs: number,
		orgSlotsOf: (orgId: string) => number = () => total,
	): DueDelivery[] {
		const now = this.clock.now();
		return this.transaction(() => {
			const claimed: DueDelivery[] = [];
			const byOrg = new Map<string, string[]>();
			for (const { webhook_id, org_id } of this.repos.deliveries.endpointsWithOpenDeliveries()) {
				if (!byOrg.has(org_id)) byOrg.set(org_id, []);
				byOrg.get(org_id)!.push(webhook_id);
			}
			this.#rotation++;
			const orgs = rotated([...byOrg.keys()], this.#rotation);
			const orgLeft = new Map(orgs.map((org) => [org, orgSlotsOf(org)]));
			const endpointLeft = new Map<string, number>();
			for (const pass of ['share', 'rest'] as const) {
				for (const [index, org] of orgs.entries()) {
					const free = total - claimed.length;
					if (free <= 0) return claimed;
					const share = pass === 'share' ? Math.ceil(free / (orgs.length - index)) : free;
					let limit = Math.min(share, orgLeft.get(org)!);
					for (const webhookId of rotated(byOrg.get(org)!, this.#rotation)) {
						if (limit <= 0) break;
						const left = endpointLeft.get(webhookId) ?? slotsOf(webhookId);
						const count = Math.min(left, limit);
						if (count <= 0) continue;
						const due = this.repos.deliveries.claimDueOf(webhookId, now, count, now + leaseMs);
						claimed.push(...due);
						limit -= due.length;
						orgLeft.set(org, orgLeft.get(org)! - due.length);
						// An endpoint with fewer due than it could take has none left to claim.
						endpointLeft.set(webhookId, due.length < count ? 0 : left - due.length);
					}
				}
			}
			return claimed;
		});
	}

	/**
	 * Milliseconds until the next unclaimed open delivery is due (0 if one is), or null when there is
	 * none; endpoints (or organizations) without a free slot are left out (a finishing send of theirs
	 * wakes the dispatcher).
	 */
	msUntilNextDue(
		slotsOf: (webhookId: string) => number = () => 1,
		orgSlotsOf: (orgId: string) => number = () => 1,
	): number | null {
		const now = this.clock.now();
		let next: number | null = null;
		for (const { webhook_id, org_id } of this.repos.deliveries.endpointsWithOpenDeliveries()) {
			if (slotsOf(webhook_id) <= 0 || orgSlotsOf(org_id) <= 0) continue;
			const due = this.repos.deliveries.nextDueAtOf(webhook_id, now);
			if (due !== null && (next === null || due < next)) next = due;
		}
		return next === null ? null : Math.max(0, next - now);
	}

	/** Whether a recovery has deliveries left to queue. */
	recoveryUnderWay(): boolean {
		return this.repos.deliveries.recoveryUnderWay();
	}

	/**
	 * Goes on with a recovery under way: queues its next batch, in a transaction of its own. False
	 * when none is under way. The dispatcher calls it between its passes.
	 */
	recoverNextBatch(): boolean {
		return this.transaction(() =>
			this.repos.deliveries.recoverBatch(this.clock.now(), RECOVERY_BATCH),
		);
	}

	/**
	 * Records the outcomes of attempts, in one transaction; should that fail, each in its own, so that
	 * one that cannot be recorded holds back no other. Returns those that could not be: their claims
	 * run out and they are sent again (at least once, as after a crash).
	 */
	record(answers: readonly Answer[]): Array<{ answer: Answer; error: unknown }> {
		if (answers.length === 0) return [];
		try {
			this.transaction(() => {
				for (const answer of answers) this.#recordOne(answer);
			});
			return [];
		} catch {
			const failed: Array<{ answer: Answer; error: unknown }> = [];
			for (const answer of answers) {
				try {
					this.transaction(() => this.#recordOne(answer));
				} catch (error) {
					failed.push({ answer, error });
				}
			}
			return failed;
		}
	}

	#recordOne({ delivery, result, startedAt, endedAt }: Answer): void {
		const attempts = delivery.attempts + 1;
		const gone = result.error !== null && result.statusCode === 410;
		const final = { ...FRESH_SCHEDULE, schedule_start: delivery.schedule_start };
		const state: NextState =
			result.error === null
				? { ...final, status: 'succeeded', next_attempt_at: null }
				: gone
					? { ...final, status: 'exhausted', next_attempt_at: null }
					: this.#afterFailure(delivery, result, endedAt);
		const outcome: AttemptOutcome = {
			...state,
			attempts,
			last_status_code: result.statusCode,
			last_error: result.error,
			last_attempt_at: isoAt(startedAt),
		};
		const recorded = this.repos.deliveries.record(delivery, outcome, {
			durationMs: Math.max(0, endedAt - startedAt),
			response: result.response,
		});
		if (gone && recorded !== 'gone') this.#disableGone(delivery, outcome.last_attempt_at);
		else if (outcome.status === 'exhausted' && recorded === 'applied')
			this.#tellExhausted(delivery, outcome);
	}

	/**
	 * Records `webhook.delivery_exhausted`, so that someone can be told: not for a test event, nor for
	 * the delivery of such an alert itself (an endpoint that is down would otherwise alert about its
	 * alerts without end).
	 */
	#tellExhausted(delivery: DueDelivery, outcome: AttemptOutcome): void {
		if (delivery.event_test || delivery.event_type === 'webhook.delivery_exhausted') return;
		this.events.record(systemActor(delivery.org_id), 'webhook.delivery_exhausted', {
			webhook_id: delivery.webhook_id,
			url: delivery.url,
			delivery_id: delivery.id,
			event_id: delivery.event_id,
			event_type: delivery.event_type,
			attempts: outcome.attempts,
			last_status_code: outcome.last_status_code,
			last_error: outcome.last_error ?? '',
		});
	}

	/** Disables an endpoint that answered 410 Gone; call inside the transaction recording that answer. */
	#disableGone(delivery: DueDelivery, at: string): void {
		const reason = 'The endpoint answered 410 Gone.';
		if (!this.repos.webhooks.disable(delivery.webhook_id, at)) return; // already disabled
		this.repos.deliveries.giveUpOpenOfWebhook(delivery.webhook_id, `Endpoint disabled: ${reason}`);
		this.events.record(systemActor(delivery.org_id), 'webhook.disabled', {
			webhook_id: delivery.webhook_id,
			url: delivery.url,
			reason,
		});
	}

	/**
	 * The state after a failed attempt. The schedule's next step is taken, unless the receiver asked
	 * (`429`/`503` with `Retry-After`) to be tried again sooner than that step falls due: then it is,
	 * without using up the step, at most `MAX_EARLY_RETRIES_PER_STEP` times. A `Retry-After` later
	 * than the step delays it, capped at the schedule's longest step. The schedule still ends: a
	 * receiver's answers can neither give up a delivery early nor keep it retrying without end.
	 */
	#afterFailure(delivery: DueDelivery, result: AttemptResult, now: number): NextState {
		const step = delivery.attempts + 1 - delivery.schedule_start;
		const delayMs = retryDelayMs(this.#retryScheduleSeconds, step, this.#random);
		const counted = { ...FRESH_SCHEDULE, schedule_start: delivery.schedule_start };
		if (delayMs === null) return { ...counted, status: 'exhausted', next_attempt_at: null };
		const stepDueAt = delivery.step_due_at ?? now + delayMs;
		const askedMs = retryAfterMs(result, now, this.#maxRetryAfterMs);
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

/** `items` starting at `start` (modulo their number), and wrapping around. */
function rotated<T>(items: readonly T[], start: number): T[] {
	const at = items.length === 0 ? 0 : start % items.length;
	return [...items.slice(at), ...items.slice(0, at)];
}

/** What a delivery's next attempt starts with when nothing special is asked: the schedule's own step. */
const FRESH_SCHEDULE = {
	step_due_at: null,
	early_retries: 0,
	next_cause: 'schedule',
} as const satisfies Partial<NextState>;

/**
 * The wait a `429` or `503` asks for with `Retry-After` (seconds, or an HTTP date), between 1 s and
 * `maxMs`; null for any other answer, or a header that is neither.
 */
export function retryAfterMs(result: AttemptResult, now: number, maxMs: number): number | null {
	if (result.statusCode !== 429 && result.statusCode !== 503) return null;
	const value = result.response?.headers['retry-after']?.trim();
	if (!value) return null;
	const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - now;
	if (Number.isNaN(ms)) return null;
	return Math.min(maxMs, Math.max(MIN_RETRY_AFTER_MS, ms));
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
