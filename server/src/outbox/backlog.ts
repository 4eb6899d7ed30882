import type { Database } from 'better-sqlite3';
import { Statements } from '../db/statements.ts';

/** Endpoints by state: active (sent to), held (kept for later) and disabled (sent nothing). */
export interface EndpointStates {
	active: number;
	held: number;
	disabled: number;
}

/** A waiting delivery: its place in the queue and its event's time. */
interface WaitingDelivery {
	seq: number;
	occurred_at: string;
}

/**
 * What the outbox has waiting, for `/metrics` at every scrape and for an endpoint's page. However
 * large the backlog, a scrape reads the count from one row that triggers keep (migration 20), and
 * looks for the oldest from where the scrape before found it, over the deliveries settled since.
 */
export class Backlog {
	readonly #sql: Statements;
	/** The oldest waiting delivery last found, and the reopened count then: none older waited. */
	#oldestFound: { seq: number; reopened: number } | undefined;

	constructor(db: Database) {
		this.#sql = new Statements(db);
	}

	/** Deliveries not yet delivered nor given up (due now, or at a later retry, or held with their endpoint). */
	waiting(): number {
		return this.#counts().waiting;
	}

	/** The time of the event of the oldest waiting delivery (deliveries follow their events' order), or null. */
	oldestWaitingEventAt(): string | null {
		const { waiting, reopened } = this.#counts();
		if (waiting === 0) return null;
		const found = this.#oldestFound;
		// Since it was last found, a delivery older than it may have been put back to waiting.
		let oldest = found?.reopened === reopened ? this.#firstWaitingFrom(found.seq) : undefined;
		// None from there on while some wait: the deliveries after it were deleted with their
		// endpoint, and a newer one took a `seq` below it.
		oldest ??= this.#oldestWaiting();
		this.#oldestFound = oldest && { seq: oldest.seq, reopened };
		return oldest?.occurred_at ?? null;
	}

	#counts(): { waiting: number; reopened: number } {
		return this.#sql
			.of<
				[],
				{ waiting: number; reopened: number }
			>('SELECT waiting, reopened FROM webhook_backlog')
			.get()!;
	}

	/** The first waiting delivery from `seq` on: walks the table by its key, not the due index. */
	#firstWaitingFrom(seq: number): WaitingDelivery | undefined {
		return this.#sql
			.of<[number], WaitingDelivery>(
				`SELECT d.seq, e.occurred_at FROM webhook_deliveries d NOT INDEXED JOIN events e ON e.id = d.event_id
         WHERE d.seq >= ? AND d.status IN ('pending', 'failed') ORDER BY d.seq LIMIT 1`,
			)
			.get(seq);
	}

	/** The oldest waiting delivery, walking every waiting one's entry in the due index. */
	#oldestWaiting(): WaitingDelivery | undefined {
		return this.#sql
			.of<[], WaitingDelivery>(
				`SELECT d.seq, e.occurred_at FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
         WHERE d.seq = (SELECT min(seq) FROM webhook_deliveries INDEXED BY webhook_deliveries_due
                        WHERE status IN ('pending', 'failed'))`,
			)
			.get();
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
