import type { Database } from 'better-sqlite3';
import { Statements } from '../db/statements.ts';

/** Endpoints by state: active (sent to), held (kept for later) and disabled (sent nothing). */
export interface EndpointStates {
	active: number;
	held: number;
	disabled: number;
}

/**
 * What the outbox has waiting, for `/metrics` at every scrape and for an endpoint's health: read
 * from one row an endpoint that triggers keep (migration 21), however large the backlog.
 */
export class Backlog {
	readonly #sql: Statements;

	constructor(db: Database) {
		this.#sql = new Statements(db);
	}

	/** Deliveries not yet delivered nor given up (due now, or at a later retry, or held with their endpoint). */
	waiting(): number {
		return this.#sql
			.of<
				[],
				{ waiting: number }
			>('SELECT coalesce(sum(waiting), 0) AS waiting FROM webhook_backlogs')
			.get()!.waiting;
	}

	/** The time of the event of the oldest waiting delivery (deliveries follow their events' order), or null. */
	oldestWaitingEventAt(): string | null {
		const oldest = this.#sql
			.of<[], { occurred_at: string }>(
				`SELECT e.occurred_at FROM webhook_backlogs b
           JOIN webhook_deliveries d ON d.seq = b.first_seq JOIN events e ON e.id = d.event_id
         ORDER BY b.first_seq LIMIT 1`,
			)
			.get();
		return oldest?.occurred_at ?? null;
	}

	/** One endpoint's waiting deliveries, and its oldest one's event time (null when none waits). */
	waitingOf(webhookId: string): { waiting: number; oldest_event_at: string | null } {
		// Every endpoint has its row, from its creation (or migration 21) on.
		return this.#sql
			.of<[string], { waiting: number; oldest_event_at: string | null }>(
				`SELECT b.waiting, e.occurred_at AS oldest_event_at FROM webhook_backlogs b
           LEFT JOIN webhook_deliveries d ON d.seq = b.first_seq LEFT JOIN events e ON e.id = d.event_id
         WHERE b.webhook_id = ?`,
			)
			.get(webhookId)!;
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
