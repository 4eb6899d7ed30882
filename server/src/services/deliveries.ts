import { isoAt } from '../core/clock.ts';
import type { Actor } from '../core/actor.ts';
import type { AttemptOutcome, DueDelivery } from '../repositories/deliveries.ts';
import { DomainService, type ServiceDeps } from './domain-service.ts';

const JITTER = 0.1;

/** The outcome of one attempt to send a delivery. */
export interface AttemptResult {
	/** HTTP status, or null when none was received. */
	statusCode: number | null;
	/** Why the attempt failed, or null for a 2xx. */
	error: string | null;
}

/** The server itself, as the actor of what it does on its own (disabling an endpoint that answered 410). */
const SYSTEM_ACTOR_EMAIL = 'system';
const systemActor = (orgId: string): Actor => ({
	orgId,
	userId: '',
	email: SYSTEM_ACTOR_EMAIL,
	role: 'admin',
});

/**
 * The rules of the webhook outbox: which deliveries are due, claims so that no two sends overlap,
 * and what each attempt's outcome means (success, retry with jitter, exhaustion, or — on 410 Gone —
 * the endpoint disabled, recorded in the activity log as `webhook.disabled`).
 */
export class DeliveryService extends DomainService {
	readonly #retryScheduleSeconds: readonly number[];
	readonly #random: () => number;

	constructor(
		deps: ServiceDeps,
		options: { retryScheduleSeconds: readonly number[]; random?: () => number },
	) {
		super(deps);
		this.#retryScheduleSeconds = options.retryScheduleSeconds;
		this.#random = options.random ?? Math.random;
	}

	/** After a restart no send is in flight: every claim is stale, and those deliveries are sent again. */
	releaseAllClaims(): void {
		this.repos.deliveries.releaseAllClaims();
	}

	/** Claims up to `limit` due deliveries for `leaseMs`, so no one else sends them meanwhile. */
	claimDue(limit: number, leaseMs: number): DueDelivery[] {
		const now = this.clock.now();
		return this.transaction(() => this.repos.deliveries.claimDue(now, limit, now + leaseMs));
	}

	/** Milliseconds until the next unclaimed open delivery is due (0 if it is), or null when there is none. */
	msUntilNextDue(): number | null {
		const now = this.clock.now();
		const next = this.repos.deliveries.nextDueAt(now);
		return next === null ? null : Math.max(0, next - now);
	}

	/** Records the outcome of an attempt that started at `startedAt` (Unix ms) and ended now. */
	record(delivery: DueDelivery, result: AttemptResult, startedAt: number): void {
		const attempts = delivery.attempts + 1;
		const endedAt = this.clock.now();
		const gone = result.error !== null && result.statusCode === 410;
		const state: Pick<AttemptOutcome, 'status' | 'next_attempt_at'> =
			result.error === null
				? { status: 'succeeded', next_attempt_at: null }
				: gone
					? { status: 'exhausted', next_attempt_at: null }
					: this.#retryAfter(attempts, endedAt);
		const outcome: AttemptOutcome = {
			...state,
			attempts,
			last_status_code: result.statusCode,
			last_error: result.error,
			last_attempt_at: isoAt(startedAt),
		};
		this.transaction(() => {
			this.repos.deliveries.record(delivery, outcome, Math.max(0, endedAt - startedAt));
			if (gone) this.#disableGone(delivery, outcome.last_attempt_at);
		});
	}

	/** Disables an endpoint that answered 410 Gone; call inside the transaction recording that answer. */
	#disableGone(delivery: DueDelivery, at: string): void {
		const reason = 'The endpoint answered 410 Gone.';
		if (!this.repos.webhooks.disable(delivery.webhook_id, at)) return; // already disabled
		this.repos.deliveries.exhaustOpenOfWebhook(delivery.webhook_id, `Endpoint disabled: ${reason}`);
		this.events.record(systemActor(delivery.org_id), 'webhook.disabled', {
			webhook_id: delivery.webhook_id,
			url: delivery.url,
			reason,
		});
	}

	#retryAfter(attempts: number, now: number): Pick<AttemptOutcome, 'status' | 'next_attempt_at'> {
		const delayMs = retryDelayMs(this.#retryScheduleSeconds, attempts, this.#random);
		return delayMs === null
			? { status: 'exhausted', next_attempt_at: null }
			: { status: 'failed', next_attempt_at: now + delayMs };
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
