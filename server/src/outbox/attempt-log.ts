import type { Database } from 'better-sqlite3';
import { AFTER_ALL_TIMES, BEFORE_ALL_TIMES } from '../core/clock.ts';
import { Statements } from '../db/statements.ts';
import type {
	AttemptDetailRow,
	AttemptOutcome,
	AttemptRow,
	DeliveryFilter,
	DeliveryRow,
	DueDelivery,
	KeptResponse,
	Recorded,
} from './types.ts';

const DELIVERY_COLUMNS = `d.seq, d.id, d.webhook_id, d.event_id, e.type AS event_type, e.occurred_at AS event_occurred_at,
  e.test, d.status, d.attempts, d.resends, d.next_attempt_at, d.last_status_code, d.last_error, d.last_attempt_at`;

interface DeliveryFilterParams {
	webhook: string;
	before: number;
	limit: number;
	/** JSON text of the values; null: any. */
	statuses: string | null;
	types: string | null;
	test: number | null;
	since: string;
	until: string;
}

/**
 * The outbox's attempt log: what each attempt got and what it made of its delivery, and the
 * deliveries as people read them (listed with filters, or one with every answer).
 */
export class AttemptLog {
	readonly #sql: Statements;

	constructor(db: Database) {
		this.#sql = new Statements(db);
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
		const applied = this.#sql
			.of<AttemptOutcome & { seq: number; revision: number }>(
				`UPDATE webhook_deliveries
         SET status = @status, attempts = @attempts, next_attempt_at = @next_attempt_at, claimed_until = NULL,
             schedule_start = @schedule_start, step_due_at = @step_due_at, early_retries = @early_retries,
             next_cause = @next_cause,
             last_status_code = @last_status_code, last_error = @last_error, last_attempt_at = @last_attempt_at
         WHERE seq = @seq AND revision = @revision`,
			)
			.run({ ...outcome, seq, revision: delivery.revision });
		if (applied.changes === 0) {
			const delivered = outcome.status === 'succeeded' ? 1 : 0;
			if (this.#recordInterrupted(outcome, seq, delivered, delivery.resends) === 0) return 'gone';
			recorded = 'interrupted';
		}
		this.#sql
			.of<AttemptDetailRow>(
				`INSERT INTO webhook_delivery_attempts (delivery_seq, attempt, attempted_at, duration_ms, status_code, error,
           cause, response_headers, response_body, response_body_truncated)
         VALUES (@delivery_seq, @attempt, @attempted_at, @duration_ms, @status_code, @error,
           @cause, @response_headers, @response_body, @response_body_truncated)`,
			)
			.run({
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

	/**
	 * A resend, a recovery or giving the delivery up came while the attempt was in flight. Answered
	 * 2xx, the attempt delivered the event whatever happened meanwhile: the delivery has succeeded (a
	 * recovery then never sends it again), unless a person asked for a resend meanwhile, which still
	 * goes. Otherwise the delivery keeps the state that change gave it (due now, or given up, with what
	 * starts its next attempt), with a retry schedule that starts after this attempt. Rows changed.
	 */
	#recordInterrupted(
		outcome: AttemptOutcome,
		seq: number,
		delivered: number,
		resends: number,
	): number {
		return this.#sql
			.of<
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
             claimed_until = NULL, last_status_code = @last_status_code, last_error = @last_error,
             last_attempt_at = @last_attempt_at
         WHERE seq = @seq`,
			)
			.run({ ...outcome, seq, delivered, resends }).changes;
	}

	/** The attempt logs of these deliveries, by delivery seq, each oldest first. */
	attemptsOf(deliverySeqs: readonly number[]): Map<number, AttemptRow[]> {
		const rows = this.#sql
			.of<[string], AttemptRow>(
				`SELECT delivery_seq, attempt, attempted_at, duration_ms, status_code, error, cause
         FROM webhook_delivery_attempts WHERE delivery_seq IN (SELECT value FROM json_each(?))
         ORDER BY delivery_seq, attempt`,
			)
			.all(JSON.stringify(deliverySeqs));
		const bySeq = new Map<number, AttemptRow[]>();
		for (const row of rows) {
			const log = bySeq.get(row.delivery_seq) ?? [];
			log.push(row);
			bySeq.set(row.delivery_seq, log);
		}
		return bySeq;
	}

	/** Every attempt of one delivery with the answer it got, oldest first. */
	attemptDetailsOf(deliverySeq: number): AttemptDetailRow[] {
		return this.#sql
			.of<[number], AttemptDetailRow>(
				`SELECT delivery_seq, attempt, attempted_at, duration_ms, status_code, error, cause,
                response_headers, response_body, response_body_truncated
         FROM webhook_delivery_attempts WHERE delivery_seq = ? ORDER BY attempt`,
			)
			.all(deliverySeq);
	}

	/** The endpoint's deliveries before the seq `beforeSeq`, newest first, as `filter` lets through. */
	pageNewestFirst(
		webhookId: string,
		beforeSeq: number,
		limit: number,
		filter: DeliveryFilter = {},
	): DeliveryRow[] {
		const { statuses, types, test, since, until } = filter;
		if (Object.values(filter).every((value) => value === undefined))
			return this.#sql
				.of<[string, number, number], DeliveryRow>(
					`SELECT ${DELIVERY_COLUMNS}
           FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
           WHERE d.webhook_id = ? AND d.seq < ? ORDER BY d.seq DESC LIMIT ?`,
				)
				.all(webhookId, beforeSeq, limit);
		// An absent filter is null: the condition then holds.
		return this.#sql
			.of<DeliveryFilterParams, DeliveryRow>(
				`SELECT ${DELIVERY_COLUMNS}
         FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
         WHERE d.webhook_id = @webhook AND d.seq < @before
           AND (@statuses IS NULL OR d.status IN (SELECT value FROM json_each(@statuses)))
           AND (@types IS NULL OR e.type IN (SELECT value FROM json_each(@types)))
           AND (@test IS NULL OR e.test = @test)
           AND e.occurred_at >= @since AND e.occurred_at < @until
         ORDER BY d.seq DESC LIMIT @limit`,
			)
			.all({
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
		return this.#sql
			.of<[string, string], DeliveryRow>(
				`SELECT ${DELIVERY_COLUMNS}
         FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
         WHERE d.webhook_id = ? AND d.id = ?`,
			)
			.get(webhookId, deliveryId);
	}
}
