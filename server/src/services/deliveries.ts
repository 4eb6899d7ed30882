import { isoAt } from '../core/clock.ts';
import { systemActor } from '../core/actor.ts';
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
	readonly #random: () => number;
	#rotation = 0;

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

	/**
	 * Claims due deliveries for `leaseMs`, so no one else sends them meanwhile: endpoint by endpoint,
	 * starting with a different one each time, at most `slotsOf(endpoint)` of each and `total` in
	 * all. An endpoint with a long backlog thus goes at its own pace and holds up no other.
	 */
	claimDue(total: number, slotsOf: (webhookId: string) => number, leaseMs: number): DueDelivery[] {
		const now = this.clock.now();
		return this.transaction(() => {
			const claimed: DueDelivery[] = [];
			const endpoints = this.repos.deliveries.endpointsWithOpenDeliveries();
			this.#rotation = (this.#rotation + 1) % Math.max(1, endpoints.length);
			const ordered = [...endpoints.slice(this.#rotation), ...endpoints.slice(0, this.#rotation)];
			for (const webhookId of ordered) {
				const limit = Math.min(slotsOf(webhookId), total - claimed.length);
				if (limit <= 0) continue;
				claimed.push(...this.repos.deliveries.claimDueOf(webhookId, now, limit, now + leaseMs));
				if (claimed.length >= total) break;
			}
			return claimed;
		});
	}

	/**
	 * Milliseconds until the next unclaimed open delivery is due (0 if one is), or null when there is
	 * none; endpoints without a free slot are left out (a finishing send of theirs wakes the dispatcher).
	 */
	msUntilNextDue(slotsOf: (webhookId: string) => number = () => 1): number | null {
		const now = this.clock.now();
		let next: number | null = null;
		for (const webhookId of this.repos.deliveries.endpointsWithOpenDeliveries()) {
			if (slotsOf(webhookId) <= 0) continue;
			const due = this.repos.deliveries.nextDueAtOf(webhookId, now);
			if (due !== null && (next === null || due < next)) next = due;
		}
		return next === null ? null : Math.max(0, next - now);
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
		const state: Pick<AttemptOutcome, 'status' | 'next_attempt_at'> =
			result.error === null
				? { status: 'succeeded', next_attempt_at: null }
				: gone
					? { status: 'exhausted', next_attempt_at: null }
					: this.#retryAfter(attempts - delivery.schedule_start, endedAt);
		const outcome: AttemptOutcome = {
			...state,
			attempts,
			last_status_code: result.statusCode,
			last_error: result.error,
			last_attempt_at: isoAt(startedAt),
		};
		const recorded = this.repos.deliveries.record(
			delivery,
			outcome,
			Math.max(0, endedAt - startedAt),
		);
		if (gone && recorded !== 'gone') this.#disableGone(delivery, outcome.last_attempt_at);
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

	/** The state after the `attempts`-th failed attempt of the current schedule. */
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
