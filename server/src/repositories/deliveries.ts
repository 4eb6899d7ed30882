import { AFTER_ALL_TIMES, BEFORE_ALL_TIMES } from '../core/clock.ts';
import { newResourceId } from '../lib/resource-id.ts';
import { retentionStep, type RetentionStep } from './retention-step.ts';
import type { Database } from 'better-sqlite3';
import type { AttemptCause, DeliveryStatus } from '../schemas/webhooks.ts';
import type { EventType } from '../schemas/events.ts';

export interface DeliveryRow {
	seq: number;
	id: string;
	webhook_id: string;
	event_id: string;
	event_type: EventType;
	event_occurred_at: string;
	/** 1 for a test event */
	test: number;
	status: DeliveryStatus;
	attempts: number;
	resends: number;
	next_attempt_at: number | null;
	last_status_code: number | null;
	last_error: string | null;
	last_attempt_at: string | null;
}

/** A claimed delivery with everything needed to send it. */
export interface DueDelivery {
	seq: number;
	id: string;
	attempts: number;
	/** Attempts made before the current retry schedule began (a resend or recovery starts a new one). */
	schedule_start: number;
	/**
	 * Bumped by every change made beside the dispatcher (a resend, a recovery, giving it up when the
	 * endpoint is disabled): an attempt in flight meanwhile does not undo that change.
	 */
	revision: number;
	resends: number;
	url: string;
	secret: string;
	/** The secret a rotation replaced, while it still signs deliveries; else null. */
	previous_secret: string | null;
	/** 1: only a 2xx answer with this delivery's receipt counts as delivered. */
	require_receipt: number;
	webhook_id: string;
	event_id: string;
	event_type: EventType;
	event_actor: string;
	event_occurred_at: string;
	event_data: string;
	/** 1 for a test event */
	event_test: number;
	org_id: string;
	/** What starts this attempt. */
	next_cause: AttemptCause;
	/** While the receiver's `Retry-After` makes early retries: when the schedule's current step falls due. */
	step_due_at: number | null;
	/** Early retries the current step has had. */
	early_retries: number;
}

/** One try of a delivery, as the attempt log lists it. */
export interface AttemptRow {
	delivery_seq: number;
	attempt: number;
	attempted_at: string;
	duration_ms: number;
	status_code: number | null;
	error: string | null;
	cause: AttemptCause;
}

/** One try with the answer it got. */
export interface AttemptDetailRow extends AttemptRow {
	/** JSON of the kept headers; null when no answer came. */
	response_headers: string | null;
	response_body: string | null;
	response_body_truncated: number;
}

/** The receiver's answer to an attempt, as it is kept. */
export interface KeptResponse {
	headers: Record<string, string>;
	body: string;
	bodyTruncated: boolean;
}

/** Which deliveries a page holds; each absent filter lets all through. */
export interface DeliveryFilter {
	statuses?: readonly DeliveryStatus[];
	types?: readonly string[];
	test?: boolean;
	/** Of the event's time: at or after `since`, before `until`. */
	since?: string;
	until?: string;
}

interface DeliveryFilterParams {
	webhook: string;
	before: number;
	limit: number;
	statuses: string | null;
	types: string | null;
	test: number | null;
	since: string;
	until: string;
}

export interface AttemptOutcome {
	status: DeliveryStatus;
	attempts: number;
	next_attempt_at: number | null;
	/** Attempts the current schedule does not count (those before it began, and early retries). */
	schedule_start: number;
	step_due_at: number | null;
	early_retries: number;
	next_cause: AttemptCause;
	last_status_code: number | null;
	last_error: string | null;
	last_attempt_at: string;
}

/** Why a delivery to a disabled endpoint was not sent; a recovery sends it once the endpoint is enabled. */
const NOT_SENT_DISABLED = 'Not sent: the endpoint was disabled.';

/** What became of an attempt's answer when it was recorded. */
export type Recorded =
	/** The delivery took the attempt's outcome. */
	| 'applied'
	/**
	 * A resend, a recovery or giving it up came while the attempt was in flight: that change stands,
	 * unless the attempt was delivered (a 2xx counts whatever happened meanwhile).
	 */
	| 'interrupted'
	/** The delivery is gone with its endpoint, deleted while the attempt was in flight. */
	| 'gone';

const DELIVERY_COLUMNS = `d.seq, d.id, d.webhook_id, d.event_id, e.type AS event_type, e.occurred_at AS event_occurred_at,
  e.test, d.status, d.attempts, d.resends, d.next_attempt_at, d.last_status_code, d.last_error, d.last_attempt_at`;
const OPEN = `d.status IN ('pending', 'failed')`;
const UNCLAIMED = '(d.claimed_until IS NULL OR d.claimed_until < @now)';

export class DeliveryRepository {
	readonly #subscribedWebhooks;
	readonly #insert;
	readonly #openEndpoints;
	readonly #dueOf;
	readonly #claim;
	readonly #nextDueAtOf;
	readonly #record;
	readonly #recordInterrupted;
	readonly #logAttempt;
	readonly #attemptsOf;
	readonly #attemptDetailsOf;
	readonly #releaseAllClaims;
	readonly #giveUpOpenOfWebhook;
	readonly #pageNewestFirst;
	readonly #pageNewestFirstFiltered;
	readonly #find;
	readonly #resend;
	readonly #firstAtOrAfter;
	readonly #seqRange;
	readonly #countGivenUp;
	readonly #saveRecovery;
	readonly #nextRecovery;
	readonly #recoverBatch;
	readonly #advanceRecovery;
	readonly #endRecovery;
	readonly #skipHeld;
	readonly #oldestAfter;
	readonly #deleteSeqs;

	constructor(db: Database) {
		this.#subscribedWebhooks = db.prepare<
			[string, string],
			{ id: string; disabled: number; held: number }
		>(
			`SELECT w.id, w.disabled_at IS NOT NULL AS disabled, w.held_since IS NOT NULL AS held FROM webhooks w
       WHERE w.org_id = ? AND EXISTS (SELECT 1 FROM json_each(w.event_types) WHERE value = ?)`,
		);
		this.#insert = db.prepare<{
			id: string;
			webhook_id: string;
			event_id: string;
			status: DeliveryStatus;
			next_attempt_at: number | null;
			last_error: string | null;
			next_cause: AttemptCause;
		}>(
			`INSERT INTO webhook_deliveries (id, webhook_id, event_id, status, next_attempt_at, last_error, next_cause)
       VALUES (@id, @webhook_id, @event_id, @status, @next_attempt_at, @last_error, @next_cause)`,
		);
		// A loose index scan: one seek per endpoint with open deliveries, however many each has.
		this.#openEndpoints = db.prepare<[], { webhook_id: string; org_id: string }>(
			`WITH RECURSIVE open(webhook_id) AS (
           SELECT (SELECT webhook_id FROM webhook_deliveries d WHERE ${OPEN} ORDER BY webhook_id LIMIT 1)
           UNION ALL
           SELECT (SELECT webhook_id FROM webhook_deliveries d WHERE ${OPEN} AND d.webhook_id > open.webhook_id
                   ORDER BY webhook_id LIMIT 1)
           FROM open WHERE open.webhook_id IS NOT NULL
         )
         SELECT o.webhook_id, w.org_id FROM open o JOIN webhooks w ON w.id = o.webhook_id
         WHERE w.disabled_at IS NULL AND w.held_since IS NULL`,
		);
		this.#dueOf = db.prepare<{ webhook: string; now: number; limit: number }, DueDelivery>(
			`SELECT d.seq, d.id, d.attempts, d.schedule_start, d.revision, d.resends, w.url, w.secret,
              CASE WHEN w.previous_secret_expires_at > @now THEN w.previous_secret END AS previous_secret,
              w.require_receipt, w.id AS webhook_id, e.id AS event_id, e.type AS event_type, e.actor AS event_actor,
              e.occurred_at AS event_occurred_at, e.data AS event_data, e.test AS event_test, e.org_id,
              d.next_cause, d.step_due_at, d.early_retries
       FROM webhook_deliveries d
       JOIN webhooks w ON w.id = d.webhook_id
       JOIN events e ON e.id = d.event_id
       WHERE d.webhook_id = @webhook AND ${OPEN} AND d.next_attempt_at <= @now AND ${UNCLAIMED}
       ORDER BY d.next_attempt_at
       LIMIT @limit`,
		);
		this.#claim = db.prepare<[number, number]>(
			'UPDATE webhook_deliveries SET claimed_until = ? WHERE seq = ?',
		);
		this.#nextDueAtOf = db
			.prepare<{ webhook: string; now: number }, number>(
				`SELECT d.next_attempt_at FROM webhook_deliveries d
         WHERE d.webhook_id = @webhook AND ${OPEN} AND ${UNCLAIMED}
         ORDER BY d.next_attempt_at LIMIT 1`,
			)
			.pluck();
		this.#record = db.prepare<AttemptOutcome & { seq: number; revision: number }>(
			`UPDATE webhook_deliveries
       SET status = @status, attempts = @attempts, next_attempt_at = @next_attempt_at, claimed_until = NULL,
           schedule_start = @schedule_start, step_due_at = @step_due_at, early_retries = @early_retries,
           next_cause = @next_cause,
           last_status_code = @last_status_code, last_error = @last_error, last_attempt_at = @last_attempt_at
       WHERE seq = @seq AND revision = @revision`,
		);
		// A resend, a recovery or giving the delivery up came while the attempt was in flight. Answered
		// 2xx, the attempt delivered the event whatever happened meanwhile: the delivery has succeeded
		// (a recovery then never sends it again), unless a person asked for a resend meanwhile, which
		// still goes. Otherwise the delivery keeps the state that change gave it (due now, or given
		// up, with what starts its next attempt), with a retry schedule that starts after this attempt.
		this.#recordInterrupted = db.prepare<
			Omit<AttemptOutcome, 'schedule_start' | 'step_due_at' | 'early_retries' | 'next_cause'> & {
				seq: number;
				delivered: number;
				resends: number;
			}
		>(
			`UPDATE webhook_deliveries
       SET status = CASE WHEN @delivered AND resends = @resends THEN 'succeeded' ELSE status END,
           next_attempt_at = CASE WHEN @delivered AND resends = @resends THEN NULL ELSE next_attempt_at END,
           attempts = @attempts, schedule_start = @attempts, step_due_at = NULL, early_retries = 0,
           claimed_until = NULL, last_status_code = @last_status_code, last_error = @last_error, last_attempt_at = @last_attempt_at
       WHERE seq = @seq`,
		);
		this.#logAttempt = db.prepare<AttemptDetailRow>(
			`INSERT INTO webhook_delivery_attempts (delivery_seq, attempt, attempted_at, duration_ms, status_code, error,
         cause, response_headers, response_body, response_body_truncated)
       VALUES (@delivery_seq, @attempt, @attempted_at, @duration_ms, @status_code, @error,
         @cause, @response_headers, @response_body, @response_body_truncated)`,
		);
		this.#attemptsOf = db.prepare<[string], AttemptRow>(
			`SELECT delivery_seq, attempt, attempted_at, duration_ms, status_code, error, cause
       FROM webhook_delivery_attempts WHERE delivery_seq IN (SELECT value FROM json_each(?))
       ORDER BY delivery_seq, attempt`,
		);
		this.#attemptDetailsOf = db.prepare<[number], AttemptDetailRow>(
			`SELECT delivery_seq, attempt, attempted_at, duration_ms, status_code, error, cause,
              response_headers, response_body, response_body_truncated
       FROM webhook_delivery_attempts WHERE delivery_seq = ? ORDER BY attempt`,
		);
		this.#releaseAllClaims = db.prepare(
			'UPDATE webhook_deliveries SET claimed_until = NULL WHERE claimed_until IS NOT NULL',
		);
		this.#giveUpOpenOfWebhook = db.prepare<[string, string]>(
			`UPDATE webhook_deliveries
       SET status = 'exhausted', next_attempt_at = NULL, last_error = ?, revision = revision + 1
       WHERE webhook_id = ? AND status IN ('pending', 'failed')`,
		);
		this.#pageNewestFirst = db.prepare<[string, number, number], DeliveryRow>(
			`SELECT ${DELIVERY_COLUMNS}
       FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
       WHERE d.webhook_id = ? AND d.seq < ? ORDER BY d.seq DESC LIMIT ?`,
		);
		// An absent filter is null (a list: JSON text of its values): the condition then holds.
		this.#pageNewestFirstFiltered = db.prepare<DeliveryFilterParams, DeliveryRow>(
			`SELECT ${DELIVERY_COLUMNS}
       FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
       WHERE d.webhook_id = @webhook AND d.seq < @before
         AND (@statuses IS NULL OR d.status IN (SELECT value FROM json_each(@statuses)))
         AND (@types IS NULL OR e.type IN (SELECT value FROM json_each(@types)))
         AND (@test IS NULL OR e.test = @test)
         AND e.occurred_at >= @since AND e.occurred_at < @until
       ORDER BY d.seq DESC LIMIT @limit`,
		);
		this.#find = db.prepare<[string, string], DeliveryRow>(
			`SELECT ${DELIVERY_COLUMNS}
       FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
       WHERE d.webhook_id = ? AND d.id = ?`,
		);
		this.#resend = db.prepare<[number, number]>(
			`UPDATE webhook_deliveries
       SET status = 'pending', next_attempt_at = ?, schedule_start = attempts, next_cause = 'resend',
           step_due_at = NULL, early_retries = 0, resends = resends + 1, revision = revision + 1
       WHERE seq = ?`,
		);
		this.#firstAtOrAfter = db.prepare<
			{ webhook: string; seq: number },
			{ seq: number; occurred_at: string }
		>(
			`SELECT d.seq, e.occurred_at FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
       WHERE d.webhook_id = @webhook AND d.seq >= @seq ORDER BY d.seq LIMIT 1`,
		);
		// Two subqueries, so that each is one seek of the index rather than a scan of the endpoint's rows.
		this.#seqRange = db.prepare<[string, string], { first: number | null; last: number | null }>(
			`SELECT (SELECT min(seq) FROM webhook_deliveries WHERE webhook_id = ?) AS first,
              (SELECT max(seq) FROM webhook_deliveries WHERE webhook_id = ?) AS last`,
		);
		this.#countGivenUp = db
			.prepare<{ webhook: string; from: number; through: number }, number>(
				`SELECT count(*) FROM webhook_deliveries
         WHERE webhook_id = @webhook AND status IN ('failed', 'exhausted') AND seq BETWEEN @from AND @through`,
			)
			.pluck();
		this.#saveRecovery = db.prepare<{ webhook: string; from: number; through: number }>(
			`INSERT INTO webhook_recoveries (webhook_id, next_seq, through_seq) VALUES (@webhook, @from, @through)
       ON CONFLICT (webhook_id) DO UPDATE SET next_seq = min(next_seq, @from), through_seq = max(through_seq, @through)`,
		);
		this.#nextRecovery = db.prepare<
			{ webhook: string | null },
			{ webhook_id: string; next_seq: number; through_seq: number }
		>(
			`SELECT webhook_id, next_seq, through_seq FROM webhook_recoveries
       WHERE @webhook IS NULL OR webhook_id = @webhook ORDER BY webhook_id LIMIT 1`,
		);
		this.#recoverBatch = db
			.prepare<
				{ webhook: string; next: number; through: number; now: number; limit: number },
				number
			>(
				`UPDATE webhook_deliveries
         SET status = 'pending', next_attempt_at = @now, schedule_start = attempts, next_cause = 'recovery',
             step_due_at = NULL, early_retries = 0, revision = revision + 1
         WHERE seq IN (
           SELECT seq FROM webhook_deliveries
           WHERE webhook_id = @webhook AND status IN ('failed', 'exhausted') AND seq BETWEEN @next AND @through
           ORDER BY seq LIMIT @limit
         )
         RETURNING seq`,
			)
			.pluck();
		this.#advanceRecovery = db.prepare<[number, string]>(
			'UPDATE webhook_recoveries SET next_seq = ? WHERE webhook_id = ?',
		);
		this.#endRecovery = db.prepare<[string]>('DELETE FROM webhook_recoveries WHERE webhook_id = ?');
		this.#oldestAfter = db.prepare<
			{ after: number; limit: number },
			{ seq: number; status: DeliveryStatus; occurred_at: string }
		>(
			`SELECT d.seq, d.status, e.occurred_at FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
       WHERE d.seq > @after ORDER BY d.seq LIMIT @limit`,
		);
		this.#deleteSeqs = db.prepare<[string]>(
			'DELETE FROM webhook_deliveries WHERE seq IN (SELECT value FROM json_each(?))',
		);
		this.#skipHeld = db.prepare<{ webhook: string; since: string; reason: string }>(
			`UPDATE webhook_deliveries
       SET status = 'exhausted', next_attempt_at = NULL, last_error = @reason, revision = revision + 1
       WHERE seq IN (
         SELECT d.seq FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
         WHERE d.webhook_id = @webhook AND d.status = 'pending' AND d.attempts = 0 AND e.occurred_at >= @since
       )`,
		);
	}

	/**
	 * Queues the event for every endpoint of the organization subscribed to its type: due now for an
	 * enabled endpoint (a held one sends it once released), kept as given up (never sent,
	 * recoverable) for a disabled one. Returns how many can be sent now.
	 */
	enqueue(event: { id: string; org_id: string; type: string }, now: number): number {
		let due = 0;
		for (const webhook of this.#subscribedWebhooks.all(event.org_id, event.type)) {
			this.insert(webhook.id, event.id, now, { disabled: webhook.disabled === 1 });
			if (!webhook.disabled && !webhook.held) due++;
		}
		return due;
	}

	/**
	 * One delivery of the event to the endpoint: due now, or given up at once when it is disabled.
	 * `cause`: what starts its first attempt (`test` for a test event).
	 */
	insert(
		webhookId: string,
		eventId: string,
		now: number,
		{ disabled = false, cause = 'schedule' }: { disabled?: boolean; cause?: AttemptCause } = {},
	): string {
		const id = newResourceId(now);
		this.#insert.run({
			id,
			webhook_id: webhookId,
			event_id: eventId,
			status: disabled ? 'exhausted' : 'pending',
			next_attempt_at: disabled ? null : now,
			last_error: disabled ? NOT_SENT_DISABLED : null,
			next_cause: cause,
		});
		return id;
	}

	/** The enabled endpoints that have pending or failed deliveries, with their organization, in id order. */
	endpointsWithOpenDeliveries(): Array<{ webhook_id: string; org_id: string }> {
		return this.#openEndpoints.all();
	}

	/** Marks up to `limit` due deliveries of one endpoint as claimed until `leaseUntil`; call inside a transaction. */
	claimDueOf(webhookId: string, now: number, limit: number, leaseUntil: number): DueDelivery[] {
		const rows = this.#dueOf.all({ webhook: webhookId, now, limit });
		for (const row of rows) this.#claim.run(leaseUntil, row.seq);
		return rows;
	}

	/** When the endpoint's next unclaimed open delivery becomes due, or null when it has none. */
	nextDueAtOf(webhookId: string, now: number): number | null {
		return this.#nextDueAtOf.get({ webhook: webhookId, now }) ?? null;
	}

	/**
	 * Stores the outcome on the delivery and adds the attempt to its log; call inside a transaction.
	 * See `Recorded` for what happens when something changed the delivery while it was in flight.
	 */
	record(
		delivery: DueDelivery,
		outcome: AttemptOutcome,
		attempt: { durationMs: number; response: KeptResponse | null },
	): Recorded {
		const seq = delivery.seq;
		let recorded: Recorded = 'applied';
		if (this.#record.run({ ...outcome, seq, revision: delivery.revision }).changes === 0) {
			const delivered = outcome.status === 'succeeded' ? 1 : 0;
			const interrupted = { ...outcome, seq, delivered, resends: delivery.resends };
			if (this.#recordInterrupted.run(interrupted).changes === 0) return 'gone';
			recorded = 'interrupted';
		}
		this.#logAttempt.run({
			delivery_seq: seq,
			attempt: outcome.attempts,
			attempted_at: outcome.last_attempt_at,
			duration_ms: attempt.durationMs,
			status_code: outcome.last_status_code,
			error: outcome.last_error,
			cause: delivery.next_cause,
			response_headers: attempt.response ? JSON.stringify(attempt.response.headers) : null,
			response_body: attempt.response?.body ?? null,
			response_body_truncated: attempt.response?.bodyTruncated ? 1 : 0,
		});
		return recorded;
	}

	/** The attempt logs of these deliveries, by delivery seq, each oldest first. */
	attemptsOf(deliverySeqs: readonly number[]): Map<number, AttemptRow[]> {
		const bySeq = new Map<number, AttemptRow[]>();
		for (const row of this.#attemptsOf.all(JSON.stringify(deliverySeqs))) {
			const log = bySeq.get(row.delivery_seq) ?? [];
			log.push(row);
			bySeq.set(row.delivery_seq, log);
		}
		return bySeq;
	}

	/** Every attempt of one delivery with the answer it got, oldest first. */
	attemptDetailsOf(deliverySeq: number): AttemptDetailRow[] {
		return this.#attemptDetailsOf.all(deliverySeq);
	}

	/** After a crash no send is in flight: every claim is stale. */
	releaseAllClaims(): number {
		return this.#releaseAllClaims.run().changes;
	}

	/**
	 * Gives up the endpoint's pending and failed deliveries, and ends a recovery under way (a
	 * recovery can send them again).
	 */
	giveUpOpenOfWebhook(webhookId: string, reason: string): number {
		this.#endRecovery.run(webhookId);
		return this.#giveUpOpenOfWebhook.run(reason, webhookId).changes;
	}

	pageNewestFirst(
		webhookId: string,
		beforeSeq: number,
		limit: number,
		filter: DeliveryFilter = {},
	): DeliveryRow[] {
		const { statuses, types, test, since, until } = filter;
		if (Object.values(filter).every((value) => value === undefined))
			return this.#pageNewestFirst.all(webhookId, beforeSeq, limit);
		return this.#pageNewestFirstFiltered.all({
			webhook: webhookId,
			before: beforeSeq,
			limit,
			statuses: statuses ? JSON.stringify(statuses) : null,
			types: types ? JSON.stringify(types) : null,
			test: test === undefined ? null : test ? 1 : 0,
			since: since ?? BEFORE_ALL_TIMES,
			until: until ?? AFTER_ALL_TIMES,
		});
	}

	find(webhookId: string, deliveryId: string): DeliveryRow | undefined {
		return this.#find.get(webhookId, deliveryId);
	}

	/** Due now on a fresh schedule, whatever its status, as the `resends`-th resend. */
	resend(deliverySeq: number, now: number): void {
		this.#resend.run(now, deliverySeq);
	}

	/**
	 * Gives up, as `reason` says, the endpoint's deliveries never tried of events since `since` (what
	 * happened while it was held); a recovery can send them. Returns how many.
	 */
	skipHeld(webhookId: string, since: string, reason: string): number {
		return this.#skipHeld.run({ webhook: webhookId, since, reason }).changes;
	}

	/**
	 * One step of the retention: of the `limit` oldest deliveries after `after` (by seq, which follows
	 * their events' time), deletes with their attempts those of events before `cutoff` that are final
	 * (succeeded or given up; open ones are still being sent). `next`: where the next step starts, or
	 * null once a delivery of an event at or after `cutoff` was reached. Call inside a transaction.
	 */
	pruneFinalBefore(after: number, cutoff: string, limit: number): RetentionStep {
		return retentionStep(this.#oldestAfter.all({ after, limit }), cutoff, limit, (old) => {
			const final = old.filter((row) => row.status === 'succeeded' || row.status === 'exhausted');
			return this.#deleteSeqs.run(JSON.stringify(final.map((row) => row.seq))).changes;
		});
	}

	/**
	 * Starts a recovery of every failed or given-up delivery of the endpoint of an event since
	 * `since` that exists now, carried out a batch at a time by `recoverBatch`; one under way for the
	 * endpoint is widened to cover both. Returns how many deliveries it queues.
	 */
	startRecovery(webhookId: string, since: string): number {
		const from = this.#firstOfEventsSince(webhookId, since);
		if (from === null) return 0;
		const through = this.#seqRange.get(webhookId, webhookId)!.last!;
		const count = this.#countGivenUp.get({ webhook: webhookId, from, through })!;
		if (count > 0) this.#saveRecovery.run({ webhook: webhookId, from, through });
		return count;
	}

	/**
	 * Queues the next `limit` deliveries of a recovery under way (the endpoint's, or any), due `now`
	 * on a fresh schedule; call inside a transaction. False when there was none.
	 */
	recoverBatch(now: number, limit: number, webhookId: string | null = null): boolean {
		const recovery = this.#nextRecovery.get({ webhook: webhookId });
		if (!recovery) return false;
		const { webhook_id: webhook, next_seq: next, through_seq: through } = recovery;
		const queued = this.#recoverBatch.all({ webhook, next, through, now, limit });
		if (queued.length < limit) this.#endRecovery.run(webhook);
		else this.#advanceRecovery.run(Math.max(...queued) + 1, webhook);
		return true;
	}

	/** Whether a recovery has deliveries left to queue. */
	recoveryUnderWay(): boolean {
		return this.#nextRecovery.get({ webhook: null }) !== undefined;
	}

	/**
	 * The first delivery of the endpoint whose event occurred at or after `since`, found by bisecting
	 * its deliveries (their order is that of their events' time): a few index lookups, however many
	 * it has. Null when it has none.
	 */
	#firstOfEventsSince(webhookId: string, since: string): number | null {
		const range = this.#seqRange.get(webhookId, webhookId)!;
		if (range.first === null || range.last === null) return null;
		let [low, high] = [range.first, range.last];
		let found: number | null = null;
		while (low <= high) {
			const middle = Math.floor((low + high) / 2);
			const row = this.#firstAtOrAfter.get({ webhook: webhookId, seq: middle });
			if (!row || row.seq > high) high = middle - 1;
			else if (row.occurred_at >= since) {
				found = row.seq;
				high = middle - 1;
			} else low = row.seq + 1;
		}
		return found;
	}
}
