import type { Database } from 'better-sqlite3';
import { Statements } from '../db/statements.ts';
import { retentionStep, type RetentionStep } from '../repositories/retention-step.ts';
import type { DeliveryStatus } from '../schemas/webhooks.ts';

/** How long the outbox keeps what it sent: finished deliveries go, with their attempts, after their retention. */
export class DeliveryRetention {
	readonly #sql: Statements;

	constructor(db: Database) {
		this.#sql = new Statements(db);
	}

	/**
	 * One step of the retention: of the `limit` oldest deliveries after `after` (by seq, which follows
	 * their events' time), deletes with their attempts those of events before `cutoff` that are final
	 * (succeeded or given up; open ones are still being sent). `next`: where the next step starts, or
	 * null once a delivery of an event at or after `cutoff` was reached. Call inside a transaction.
	 */
	pruneFinalBefore(after: number, cutoff: string, limit: number): RetentionStep {
		const oldest = this.#sql
			.of<
				{ after: number; limit: number },
				{ seq: number; status: DeliveryStatus; occurred_at: string }
			>(
				`SELECT d.seq, d.status, e.occurred_at FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
         WHERE d.seq > @after ORDER BY d.seq LIMIT @limit`,
			)
			.all({ after, limit });
		return retentionStep(oldest, cutoff, limit, (old) => {
			const final = old.filter((row) => row.status === 'succeeded' || row.status === 'exhausted');
			return this.#sql
				.of<
					[string]
				>('DELETE FROM webhook_deliveries WHERE seq IN (SELECT value FROM json_each(?))')
				.run(JSON.stringify(final.map((row) => row.seq))).changes;
		});
	}
}
