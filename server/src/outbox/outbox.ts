import { systemActor } from '../core/actor.ts';
import { isoAt } from '../core/clock.ts';
import type { DeliveryMetrics } from '../observability/delivery-metrics.ts';
import type { Context, Tracing } from '../observability/tracing.ts';
import { DomainService, type ServiceDeps } from '../services/domain-service.ts';
import type { CountedAttempt } from './attempt-buckets.ts';
import { RetryRules } from './retry-rules.ts';
import type { DeliveryScheduler } from './scheduler.ts';
import type { AttemptOutcome, DueDelivery, SendOutcome } from './types.ts';

/** Deliveries a recovery queues per transaction: short enough that requests between barely wait. */
export const RECOVERY_BATCH = 100;

/**
 * An attempt started this soon after its endpoint was created or released is not held by n8n's
 * "not registered": it may have been sent while n8n was still registering the path the trigger
 * has just taken up, and that trigger is active. (n8n 2.41 stores the path before it runs the
 * trigger's `create`; this is a margin for the rest.)
 */
export const NOT_REGISTERED_GRACE_MS = 10_000;

/** Why the server holds an endpoint that n8n says has no workflow (`held_reason`, `webhook.held`). */
export const NOT_REGISTERED_REASON =
	"n8n answered that this endpoint's workflow webhook is not registered: the workflow is inactive or gone in that n8n, though its trigger did not say so. Deliveries are kept; activating the workflow again releases them.";

/** An attempt as its endpoint's health buckets count it. */
const counted = ({ delivery, outcome, startedAt, endedAt }: Answer): CountedAttempt => ({
	webhookId: delivery.webhook_id,
	startedAt,
	delivered: outcome.kind === 'delivered',
	durationMs: endedAt - startedAt,
});

/** An attempt that has its outcome: when it started and ended (Unix ms), and what it came to. */
export interface Answer {
	delivery: DueDelivery;
	outcome: SendOutcome;
	startedAt: number;
	endedAt: number;
	/** The attempt's trace: events its outcome records (`webhook.disabled`, …) are spans of it. */
	context?: Context;
}

/**
 * The rules of the webhook outbox on its store: which deliveries are due, claims so that no two
 * sends overlap, and what each attempt's outcome makes of its delivery (delivered, tried again on
 * the schedule, given up, or — on 410 Gone — the endpoint disabled), with the activity events the
 * server records itself (`webhook.disabled`, `webhook.delivery_exhausted`).
 */
export class Outbox extends DomainService {
	readonly #rules: RetryRules;
	readonly #metrics: DeliveryMetrics | undefined;
	readonly #tracing: Tracing | undefined;

	constructor(
		deps: ServiceDeps,
		options: {
			retryScheduleSeconds: readonly number[];
			random?: () => number;
			/** Counts each attempt once it is recorded. */
			metrics?: DeliveryMetrics;
			tracing?: Tracing;
		},
	) {
		super(deps);
		this.#rules = new RetryRules(options.retryScheduleSeconds, options.random);
		this.#metrics = options.metrics;
		this.#tracing = options.tracing;
	}

	/** After a restart no send is in flight: every claim is stale, and those deliveries are sent again. */
	releaseAllClaims(): void {
		this.repos.outbox.queue.releaseAllClaims();
	}

	/** Claims for `leaseMs` the due deliveries `scheduler` lets start now, so no one else sends them meanwhile. */
	claimDue(scheduler: DeliveryScheduler, leaseMs: number): DueDelivery[] {
		const now = this.clock.now();
		const { queue } = this.repos.outbox;
		return this.transaction(() =>
			scheduler.plan(queue.endpointsWithOpenDeliveries(), (webhookId, count) =>
				queue.claimDueOf(webhookId, now, count, now + leaseMs),
			),
		);
	}

	/**
	 * Milliseconds until the next unclaimed open delivery is due (0 if one is), or null when there is
	 * none; endpoints that `scheduler` would not send to now are left out (a finishing send of theirs
	 * wakes the dispatcher).
	 */
	msUntilNextDue(scheduler?: DeliveryScheduler): number | null {
		const now = this.clock.now();
		const { queue } = this.repos.outbox;
		let next: number | null = null;
		for (const endpoint of queue.endpointsWithOpenDeliveries()) {
			if (scheduler && !scheduler.canSend(endpoint)) continue;
			const due = queue.nextDueAtOf(endpoint.webhook_id, now);
			if (due !== null && (next === null || due < next)) next = due;
		}
		return next === null ? null : Math.max(0, next - now);
	}

	/** Whether a recovery has deliveries left to queue. */
	recoveryUnderWay(): boolean {
		return this.repos.outbox.recoveries.underWay();
	}

	/**
	 * Goes on with a recovery under way: queues its next batch, in a transaction of its own. False
	 * when none is under way. The dispatcher calls it between its passes.
	 */
	recoverNextBatch(): boolean {
		return this.transaction(() =>
			this.repos.outbox.recoveries.nextBatch(this.clock.now(), RECOVERY_BATCH),
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
			const givenUp = this.transaction(() => this.#recordAll(answers));
			answers.forEach((answer, i) => this.#count(answer, givenUp[i]));
			return [];
		} catch {
			const failed: Array<{ answer: Answer; error: unknown }> = [];
			for (const answer of answers) {
				try {
					this.#count(answer, this.transaction(() => this.#recordAll([answer]))[0]);
				} catch (error) {
					failed.push({ answer, error });
				}
			}
			return failed;
		}
	}

	/** Counts a recorded attempt (after its transaction committed: a rolled-back one is not counted). */
	#count({ delivery, outcome, endedAt }: Answer, givenUp: boolean): void {
		if (!this.#metrics) return;
		this.#metrics.attempt(outcome, delivery.event_occurred_at, delivery.event_test === 1, endedAt);
		if (givenUp) this.#metrics.givenUp();
	}

	/**
	 * Records attempts' outcomes and counts them in their endpoints' buckets (an attempt whose
	 * endpoint was deleted meanwhile leaves no trace); call inside a transaction. For each, whether
	 * that gave its delivery up.
	 */
	#recordAll(answers: readonly Answer[]): boolean[] {
		const kept: CountedAttempt[] = [];
		const givenUp = answers.map((answer) => {
			const recorded = this.#recordOne(answer);
			if (recorded !== 'gone') kept.push(counted(answer));
			return recorded === 'given up';
		});
		this.repos.outbox.buckets.add(kept);
		return givenUp;
	}

	/** Records one attempt's outcome, in the attempt's trace. */
	#recordOne(answer: Answer): 'given up' | 'recorded' | 'gone' {
		const record = () => this.#recordInTrace(answer);
		return answer.context && this.#tracing ? this.#tracing.run(answer.context, record) : record();
	}

	#recordInTrace({
		delivery,
		outcome: answered,
		startedAt,
		endedAt,
	}: Answer): 'given up' | 'recorded' | 'gone' {
		const outcome = this.#heldIfNotRegistered(delivery, answered, startedAt, endedAt);
		const recordedOutcome: AttemptOutcome = {
			...this.#rules.after(delivery, outcome, endedAt),
			attempts: delivery.attempts + 1,
			last_status_code: outcome.statusCode,
			last_error: outcome.error,
			last_attempt_at: isoAt(startedAt),
		};
		const recorded = this.repos.outbox.attempts.record(delivery, recordedOutcome, {
			durationMs: Math.max(0, endedAt - startedAt),
			response: outcome.response,
		});
		if (recorded === 'gone') return 'gone';
		const at = recordedOutcome.last_attempt_at;
		this.#noteHealth(delivery, outcome, at);
		if (outcome.kind === 'gone') this.#disableGone(delivery, at);
		else if (recordedOutcome.status === 'exhausted' && recorded === 'applied') {
			this.#tellExhausted(delivery, recordedOutcome);
			return 'given up';
		}
		return 'recorded';
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

	/**
	 * What the answer says of the endpoint's health: failed attempts in a row start an incident
	 * (`webhook.failing`, once) that the next delivered one ends (`webhook.recovered`).
	 */
	#noteHealth(delivery: DueDelivery, outcome: SendOutcome, at: string): void {
		if (outcome.kind === 'gone') return; // disabled below
		const { health } = this.repos.outbox;
		const endpoint = { webhook_id: delivery.webhook_id, url: delivery.url };
		const actor = systemActor(delivery.org_id);
		const change = health.attempted(delivery.webhook_id, outcome.kind === 'delivered', at);
		if (change?.kind === 'failing')
			this.events.record(actor, 'webhook.failing', {
				...endpoint,
				consecutive_failures: change.consecutiveFailures,
				last_status_code: outcome.statusCode,
				last_error: outcome.error ?? '',
			});
		else if (change?.kind === 'recovered')
			this.events.record(actor, 'webhook.recovered', {
				...endpoint,
				failing_since: change.failingSince,
				failed_attempts: change.failedAttempts,
			});
	}

	/**
	 * n8n's "not registered" holds the endpoint, with `webhook.held`, and keeps the delivery for its
	 * release. For an attempt started within `NOT_REGISTERED_GRACE_MS` of the endpoint's creation
	 * or release, or an endpoint disabled meanwhile, the answer is an ordinary failure instead (the
	 * outcome returned).
	 */
	#heldIfNotRegistered(
		delivery: DueDelivery,
		outcome: SendOutcome,
		startedAt: number,
		now: number,
	): SendOutcome {
		if (outcome.kind !== 'not_registered') return outcome;
		const failed: SendOutcome = { ...outcome, kind: 'failed' };
		const endpoint = this.repos.webhooks.find(delivery.org_id, delivery.webhook_id);
		if (!endpoint || endpoint.disabled_at !== null) return failed;
		if (endpoint.held_since !== null) return outcome; // held meanwhile: kept for the release
		const settledAt = Date.parse(endpoint.released_at ?? endpoint.created_at);
		if (startedAt - settledAt < NOT_REGISTERED_GRACE_MS) return failed;
		if (this.repos.webhooks.holdFor(endpoint.id, isoAt(now), NOT_REGISTERED_REASON))
			this.events.record(systemActor(delivery.org_id), 'webhook.held', {
				webhook_id: endpoint.id,
				url: endpoint.url,
				reason: NOT_REGISTERED_REASON,
				last_status_code: outcome.statusCode,
				last_error: outcome.error,
			});
		return outcome;
	}

	/** Disables an endpoint that answered 410 Gone; call inside the transaction recording that answer. */
	#disableGone(delivery: DueDelivery, at: string): void {
		const reason = 'The endpoint answered 410 Gone.';
		if (!this.repos.webhooks.disable(delivery.webhook_id, at)) return; // already disabled
		this.repos.outbox.recoveries.end(delivery.webhook_id);
		this.repos.outbox.queue.giveUpOpenOfWebhook(
			delivery.webhook_id,
			`Endpoint disabled: ${reason}`,
		);
		this.events.record(systemActor(delivery.org_id), 'webhook.disabled', {
			webhook_id: delivery.webhook_id,
			url: delivery.url,
			reason,
		});
	}
}
