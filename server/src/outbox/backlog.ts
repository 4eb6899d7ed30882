import type { Database } from 'better-sqlite3';
import { Statements } from '../db/statements.ts';

/** Endpoints by state: active (sent to), held (kept for later) and disabled (sent nothing). */
export interface EndpointStates {
	active: number;
	held: number;
	disabled: number;
}

/** What the outbox has waiting, read for `/metrics`: each answer comes from an index, not a table scan. */
export class Backlog {
	readonly #sql: Statements;

	constructor(db: Database) {
		this.#sql = new Statements(db);
	}

	/** Deliveries not yet delivered nor given up (due now, or at a later retry, or held with their endpoint). */
	waiting(): number {
		return this.#sql
			.plucked<
				[],
				number
			>("SELECT count(*) FROM webhook_deliveries WHERE status IN ('pending', 'failed')")
			.get()!;
	}

	/**
	 * The time of the event of the oldest waiting delivery (deliveries follow their events' order), or
	 * null: the smallest `seq` among the waiting ones, read from the due index that holds just them.
	 */
	oldestWaitingEventAt(): string | null {
		return (
			this.#sql
				.plucked<[], string>(
					`SELECT e.occurred_at FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
           WHERE d.seq = (SELECT min(seq) FROM webhook_deliveries INDEXED BY webhook_deliveries_due
                          WHERE status IN ('pending', 'failed'))`,
				)
				.get() ?? null
		);
	}

	/** One endpoint's waiting deliveries, and its oldest one's event time (null when none waits). */
	waitingOf(webhookId: string): { waiting: number; oldest_event_at: string | null } {
		return this.#sql
			.of<[string, string], { waiting: number; oldest_event_at: string | null }>(
				`SELECT (SELECT count(*) FROM webhook_deliveries INDEXED BY webhook_deliveries_due
                 WHERE webhook_id = ? AND status IN ('pending', 'failed')) AS waiting,
                (SELECT e.occurred_at FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
                 WHERE d.seq = (SELECT min(seq) FROM webhook_deliveries INDEXED BY webhook_deliveries_due
                                WHERE webhook_id = ? AND status IN ('pending', 'failed'))) AS oldest_event_at`,
			)
			.get(webhookId, webhookId)!;
	}

	endpointStates(): EndpointStates {
		return this.#sql
			.of<[], EndpointStates>(
				`SELECT coalesce(sum(disabled_at IS NULL AND held_since IS NULL), 0) AS active,
                coalesce(sum(disabled_at IS NULL AND held_since IS NOT NULL), 0) AS held,
                coalesce(sum(disabled_at IS NOT NULL), 0) AS disabled
         FROM webhooks`,
			)
			.get()!;
	}
}
