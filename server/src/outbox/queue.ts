import type { Database } from 'better-sqlite3';
import { Statements } from '../db/statements.ts';
import { newResourceId } from '../lib/resource-id.ts';
import type { AttemptCause, DeliveryStatus } from '../schemas/webhooks.ts';
import type { DueDelivery } from './types.ts';

/** Why a delivery to a disabled endpoint was not sent; a recovery sends it once the endpoint is enabled. */
const NOT_SENT_DISABLED = 'Not sent: the endpoint was disabled.';
const OPEN = `d.status IN ('pending', 'failed')`;
const UNCLAIMED = '(d.claimed_until IS NULL OR d.claimed_until < @now)';

/**
 * The outbox's queue: deliveries put in when their event is recorded, claimed when due so that no
 * two sends of one overlap, and put back (resent, skipped, given up) by what people and receivers do.
 */
export class DeliveryQueue {
	readonly #sql: Statements;

	constructor(db: Database) {
		this.#sql = new Statements(db);
	}

	/**
	 * Queues the event for every endpoint of the organization subscribed to its type: due now for an
	 * enabled endpoint (a held one sends it once released), kept as given up (never sent,
	 * recoverable) for a disabled one. Returns how many can be sent now.
	 */
	enqueue(event: { id: string; org_id: string; type: string }, now: number): number {
		const subscribed = this.#sql
			.of<[string, string], { id: string; disabled: number; held: number }>(
				`SELECT w.id, w.disabled_at IS NOT NULL AS disabled, w.held_since IS NOT NULL AS held FROM webhooks w
         WHERE w.org_id = ? AND EXISTS (SELECT 1 FROM json_each(w.event_types) WHERE value = ?)`,
			)
			.all(event.org_id, event.type);
		let due = 0;
		for (const webhook of subscribed) {
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
		this.#sql
			.of<{
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
			)
			.run({
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
		// A loose index scan: one seek per endpoint with open deliveries, however many each has.
		return this.#sql
			.of<[], { webhook_id: string; org_id: string }>(
				`WITH RECURSIVE open(webhook_id) AS (
           SELECT (SELECT webhook_id FROM webhook_deliveries d WHERE ${OPEN} ORDER BY webhook_id LIMIT 1)
           UNION ALL
           SELECT (SELECT webhook_id FROM webhook_deliveries d WHERE ${OPEN} AND d.webhook_id > open.webhook_id
                   ORDER BY webhook_id LIMIT 1)
           FROM open WHERE open.webhook_id IS NOT NULL
         )
         SELECT o.webhook_id, w.org_id FROM open o JOIN webhooks w ON w.id = o.webhook_id
         WHERE w.disabled_at IS NULL AND w.held_since IS NULL`,
			)
			.all();
	}

	/** Marks up to `limit` due deliveries of one endpoint as claimed until `leaseUntil`; call inside a transaction. */
	claimDueOf(webhookId: string, now: number, limit: number, leaseUntil: number): DueDelivery[] {
		const rows = this.#sql
			.of<{ webhook: string; now: number; limit: number }, DueDelivery>(
				`SELECT d.seq, d.id, d.attempts, d.schedule_start, d.revision, d.resends, w.url, w.secret,
                CASE WHEN w.previous_secret_expires_at > @now THEN w.previous_secret END AS previous_secret,
                w.require_receipt, w.id AS webhook_id, e.id AS event_id, e.type AS event_type, e.actor AS event_actor,
                e.occurred_at AS event_occurred_at, e.data AS event_data, e.test AS event_test, e.org_id,
                e.trace_parent AS event_trace_parent, e.trace_state AS event_trace_state,
                d.next_cause, d.step_due_at, d.early_retries
         FROM webhook_deliveries d
         JOIN webhooks w ON w.id = d.webhook_id
         JOIN events e ON e.id = d.event_id
         WHERE d.webhook_id = @webhook AND ${OPEN} AND d.next_attempt_at <= @now AND ${UNCLAIMED}
         ORDER BY d.next_attempt_at
         LIMIT @limit`,
			)
			.all({ webhook: webhookId, now, limit });
		const claim = this.#sql.of<[number, number]>(
			'UPDATE webhook_deliveries SET claimed_until = ? WHERE seq = ?',
		);
		for (const row of rows) claim.run(leaseUntil, row.seq);
		return rows;
	}

	/** When the endpoint's next unclaimed open delivery becomes due, or null when it has none. */
	nextDueAtOf(webhookId: string, now: number): number | null {
		return (
			this.#sql
				.plucked<{ webhook: string; now: number }, number>(
					`SELECT d.next_attempt_at FROM webhook_deliveries d
           WHERE d.webhook_id = @webhook AND ${OPEN} AND ${UNCLAIMED}
           ORDER BY d.next_attempt_at LIMIT 1`,
				)
				.get({ webhook: webhookId, now }) ?? null
		);
	}

	/** After a crash no send is in flight: every claim is stale. */
	releaseAllClaims(): number {
		return this.#sql
			.of('UPDATE webhook_deliveries SET claimed_until = NULL WHERE claimed_until IS NOT NULL')
			.run().changes;
	}

	/** Gives up the endpoint's pending and failed deliveries (a recovery can send them again). */
	giveUpOpenOfWebhook(webhookId: string, reason: string): number {
		return this.#sql
			.of<[string, string]>(
				`UPDATE webhook_deliveries
         SET status = 'exhausted', next_attempt_at = NULL, last_error = ?, revision = revision + 1
         WHERE webhook_id = ? AND status IN ('pending', 'failed')`,
			)
			.run(reason, webhookId).changes;
	}

	/** Due now on a fresh schedule, whatever its status, as the `resends`-th resend. */
	resend(deliverySeq: number, now: number): void {
		this.#sql
			.of<[number, number]>(
				`UPDATE webhook_deliveries
         SET status = 'pending', next_attempt_at = ?, schedule_start = attempts, next_cause = 'resend',
             step_due_at = NULL, early_retries = 0, resends = resends + 1, revision = revision + 1
         WHERE seq = ?`,
			)
			.run(now, deliverySeq);
	}

	/**
	 * Gives up, as `reason` says, the endpoint's deliveries never tried of events since `since` (what
	 * happened while it was held); a recovery can send them. Returns how many.
	 */
	skipHeld(webhookId: string, since: string, reason: string): number {
		return this.#sql
			.of<{ webhook: string; since: string; reason: string }>(
				`UPDATE webhook_deliveries
         SET status = 'exhausted', next_attempt_at = NULL, last_error = @reason, revision = revision + 1
         WHERE seq IN (
           SELECT d.seq FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
           WHERE d.webhook_id = @webhook AND d.status = 'pending' AND d.attempts = 0 AND e.occurred_at >= @since
         )`,
			)
			.run({ webhook: webhookId, since, reason }).changes;
	}
}
