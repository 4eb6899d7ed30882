import type { Database } from 'better-sqlite3';
import { Statements } from '../db/statements.ts';

/**
 * Recoveries under way: an endpoint's failed and given-up deliveries queued again a batch at a time,
 * so that however many there are no transaction is long and requests go on; kept in the database,
 * a recovery goes on after a restart.
 */
export class Recoveries {
	readonly #sql: Statements;

	constructor(db: Database) {
		this.#sql = new Statements(db);
	}

	/**
	 * Starts a recovery of every failed or given-up delivery of the endpoint of an event since
	 * `since` that exists now, carried out a batch at a time by `nextBatch`; one under way for the
	 * endpoint is widened to cover both. Returns how many deliveries it queues.
	 */
	start(webhookId: string, since: string): number {
		const from = this.#firstOfEventsSince(webhookId, since);
		if (from === null) return 0;
		const through = this.#seqRange(webhookId).last!;
		const count = this.#sql
			.plucked<{ webhook: string; from: number; through: number }, number>(
				`SELECT count(*) FROM webhook_deliveries
         WHERE webhook_id = @webhook AND status IN ('failed', 'exhausted') AND seq BETWEEN @from AND @through`,
			)
			.get({ webhook: webhookId, from, through })!;
		if (count > 0)
			this.#sql
				.of<{ webhook: string; from: number; through: number }>(
					`INSERT INTO webhook_recoveries (webhook_id, next_seq, through_seq) VALUES (@webhook, @from, @through)
           ON CONFLICT (webhook_id) DO UPDATE SET next_seq = min(next_seq, @from), through_seq = max(through_seq, @through)`,
				)
				.run({ webhook: webhookId, from, through });
		return count;
	}

	/**
	 * Queues the next `limit` deliveries of a recovery under way (the endpoint's, or any), due `now`
	 * on a fresh schedule; call inside a transaction. False when there was none.
	 */
	nextBatch(now: number, limit: number, webhookId: string | null = null): boolean {
		const recovery = this.#next(webhookId);
		if (!recovery) return false;
		const { webhook_id: webhook, next_seq: next, through_seq: through } = recovery;
		const queued = this.#sql
			.plucked<
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
			.all({ webhook, next, through, now, limit });
		if (queued.length < limit) this.end(webhook);
		else
			this.#sql
				.of<[number, string]>('UPDATE webhook_recoveries SET next_seq = ? WHERE webhook_id = ?')
				.run(Math.max(...queued) + 1, webhook);
		return true;
	}

	/** Whether a recovery has deliveries left to queue. */
	underWay(): boolean {
		return this.#next(null) !== undefined;
	}

	/** Ends the endpoint's recovery, if one is under way. */
	end(webhookId: string): void {
		this.#sql.of<[string]>('DELETE FROM webhook_recoveries WHERE webhook_id = ?').run(webhookId);
	}

	#next(webhookId: string | null) {
		return this.#sql
			.of<
				{ webhook: string | null },
				{ webhook_id: string; next_seq: number; through_seq: number }
			>(
				`SELECT webhook_id, next_seq, through_seq FROM webhook_recoveries
         WHERE @webhook IS NULL OR webhook_id = @webhook ORDER BY webhook_id LIMIT 1`,
			)
			.get({ webhook: webhookId });
	}

	/** The endpoint's first and last delivery; two subqueries, so that each is one seek of the index. */
	#seqRange(webhookId: string) {
		return this.#sql
			.of<[string, string], { first: number | null; last: number | null }>(
				`SELECT (SELECT min(seq) FROM webhook_deliveries WHERE webhook_id = ?) AS first,
                (SELECT max(seq) FROM webhook_deliveries WHERE webhook_id = ?) AS last`,
			)
			.get(webhookId, webhookId)!;
	}

	/**
	 * The first delivery of the endpoint whose event occurred at or after `since`, found by bisecting
	 * its deliveries (their order is that of their events' time): a few index lookups, however many
	 * it has. Null when it has none.
	 */
	#firstOfEventsSince(webhookId: string, since: string): number | null {
		const range = this.#seqRange(webhookId);
		if (range.first === null || range.last === null) return null;
		const firstAtOrAfter = this.#sql.of<
			{ webhook: string; seq: number },
			{ seq: number; occurred_at: string }
		>(
			`SELECT d.seq, e.occurred_at FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
       WHERE d.webhook_id = @webhook AND d.seq >= @seq ORDER BY d.seq LIMIT 1`,
		);
		let [low, high] = [range.first, range.last];
		let found: number | null = null;
		while (low <= high) {
			const middle = Math.floor((low + high) / 2);
			const row = firstAtOrAfter.get({ webhook: webhookId, seq: middle });
			if (!row || row.seq > high) high = middle - 1;
			else if (row.occurred_at >= since) {
				found = row.seq;
				high = middle - 1;
			} else low = row.seq + 1;
		}
		return found;
	}
}
