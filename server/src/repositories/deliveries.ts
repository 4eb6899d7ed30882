import { newResourceId } from '../lib/resource-id.ts';
import type { Database } from 'better-sqlite3';
import type { DeliveryStatus } from '../schemas/webhooks.ts';

export interface DeliveryRow {
	seq: number;
	id: string;
	webhook_id: string;
	event_id: string;
	event_type: string;
	status: DeliveryStatus;
	attempts: number;
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
	url: string;
	secret: string;
	webhook_id: string;
	event_id: string;
	event_type: string;
	event_actor: string;
	event_occurred_at: string;
	event_data: string;
	org_id: string;
}

/** One try of a delivery, as the attempt log keeps it. */
export interface AttemptRow {
	delivery_seq: number;
	attempt: number;
	attempted_at: string;
	duration_ms: number;
	status_code: number | null;
	error: string | null;
}

export interface AttemptOutcome {
	status: DeliveryStatus;
	attempts: number;
	next_attempt_at: number | null;
	last_status_code: number | null;
	last_error: string | null;
	last_attempt_at: string;
}

export class DeliveryRepository {
	readonly #subscribedWebhookIds;
	readonly #insert;
	readonly #due;
	readonly #claim;
	readonly #nextDueAt;
	readonly #record;
	readonly #logAttempt;
	readonly #attemptsOf;
	readonly #releaseAllClaims;
	readonly #exhaustOpenOfWebhook;
	readonly #pageNewestFirst;

	constructor(db: Database) {
		this.#subscribedWebhookIds = db
			.prepare<[string, string], string>(
				`SELECT w.id FROM webhooks w
         WHERE w.org_id = ? AND w.disabled_at IS NULL
           AND EXISTS (SELECT 1 FROM json_each(w.event_types) WHERE value = ?)`,
			)
			.pluck();
		this.#insert = db.prepare<[string, string, string, number]>(
			`INSERT INTO webhook_deliveries (id, webhook_id, event_id, status, next_attempt_at) VALUES (?, ?, ?, 'pending', ?)`,
		);
		this.#due = db.prepare<{ now: number; limit: number }, DueDelivery>(
			`SELECT d.seq, d.id, d.attempts, w.url, w.secret, w.id AS webhook_id,
              e.id AS event_id, e.type AS event_type, e.actor AS event_actor, e.occurred_at AS event_occurred_at,
              e.data AS event_data, e.org_id
       FROM webhook_deliveries d
       JOIN webhooks w ON w.id = d.webhook_id
       JOIN events e ON e.id = d.event_id
       WHERE d.status IN ('pending', 'failed') AND d.next_attempt_at <= @now
         AND (d.claimed_until IS NULL OR d.claimed_until < @now) AND w.disabled_at IS NULL
       ORDER BY d.next_attempt_at
       LIMIT @limit`,
		);
		this.#claim = db.prepare<[number, number]>(
			'UPDATE webhook_deliveries SET claimed_until = ? WHERE seq = ?',
		);
		// Walks the due index in order and stops at the first unclaimed delivery of an enabled endpoint.
		this.#nextDueAt = db
			.prepare<[number], number>(
				`SELECT d.next_attempt_at FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.status IN ('pending', 'failed') AND (d.claimed_until IS NULL OR d.claimed_until < ?)
           AND w.disabled_at IS NULL
         ORDER BY d.next_attempt_at LIMIT 1`,
			)
			.pluck();
		this.#record = db.prepare<AttemptOutcome & { id: string }>(
			`UPDATE webhook_deliveries
       SET status = @status, attempts = @attempts, next_attempt_at = @next_attempt_at, claimed_until = NULL,
           last_status_code = @last_status_code, last_error = @last_error, last_attempt_at = @last_attempt_at
       WHERE id = @id`,
		);
		this.#logAttempt = db.prepare<AttemptRow>(
			`INSERT INTO webhook_delivery_attempts (delivery_seq, attempt, attempted_at, duration_ms, status_code, error)
       VALUES (@delivery_seq, @attempt, @attempted_at, @duration_ms, @status_code, @error)`,
		);
		this.#attemptsOf = db.prepare<[string], AttemptRow>(
			`SELECT delivery_seq, attempt, attempted_at, duration_ms, status_code, error
       FROM webhook_delivery_attempts WHERE delivery_seq IN (SELECT value FROM json_each(?))
       ORDER BY delivery_seq, attempt`,
		);
		this.#releaseAllClaims = db.prepare(
			'UPDATE webhook_deliveries SET claimed_until = NULL WHERE claimed_until IS NOT NULL',
		);
		this.#exhaustOpenOfWebhook = db.prepare<[string, string]>(
			`UPDATE webhook_deliveries SET status = 'exhausted', next_attempt_at = NULL, claimed_until = NULL, last_error = ?
       WHERE webhook_id = ? AND status IN ('pending', 'failed')`,
		);
		this.#pageNewestFirst = db.prepare<[string, number, number], DeliveryRow>(
			`SELECT d.seq, d.id, d.webhook_id, d.event_id, e.type AS event_type, d.status, d.attempts, d.next_attempt_at,
              d.last_status_code, d.last_error, d.last_attempt_at
       FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
       WHERE d.webhook_id = ? AND d.seq < ? ORDER BY d.seq DESC LIMIT ?`,
		);
	}

	/** Queues one delivery, due now, per enabled endpoint of the organisation subscribed to the type. */
	enqueue(event: { id: string; org_id: string; type: string }, now: number): number {
		const webhookIds = this.#subscribedWebhookIds.all(event.org_id, event.type);
		for (const webhookId of webhookIds)
			this.#insert.run(newResourceId(now), webhookId, event.id, now);
		return webhookIds.length;
	}

	/** Marks up to `limit` due deliveries as claimed until `leaseUntil`; call inside a transaction. */
	claimDue(now: number, limit: number, leaseUntil: number): DueDelivery[] {
		const rows = this.#due.all({ now, limit });
		for (const row of rows) this.#claim.run(leaseUntil, row.seq);
		return rows;
	}

	/** When the next unclaimed open delivery becomes due, or null when there is none. */
	nextDueAt(now: number): number | null {
		return this.#nextDueAt.get(now) ?? null;
	}

	/** Stores the outcome on the delivery and adds the attempt to its log; call inside a transaction. */
	record(delivery: { id: string; seq: number }, outcome: AttemptOutcome, durationMs: number): void {
		this.#record.run({ ...outcome, id: delivery.id });
		this.#logAttempt.run({
			delivery_seq: delivery.seq,
			attempt: outcome.attempts,
			attempted_at: outcome.last_attempt_at,
			duration_ms: durationMs,
			status_code: outcome.last_status_code,
			error: outcome.last_error,
		});
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

	/** After a crash no send is in flight: every claim is stale. */
	releaseAllClaims(): number {
		return this.#releaseAllClaims.run().changes;
	}

	exhaustOpenOfWebhook(webhookId: string, reason: string): number {
		return this.#exhaustOpenOfWebhook.run(reason, webhookId).changes;
	}

	pageNewestFirst(webhookId: string, beforeSeq: number, limit: number): DeliveryRow[] {
		return this.#pageNewestFirst.all(webhookId, beforeSeq, limit);
	}
}
