import type { Database } from 'better-sqlite3';
import { Statements } from '../db/statements.ts';

/** Failed attempts in a row, with no delivery between, that make an endpoint failing. */
export const FAILING_AFTER_ATTEMPTS = 5;

/** Endpoints remembered as healthy, at most: past it the memory starts again (and reads again). */
const HEALTHY_KEPT = 10_000;

/** A change in an endpoint's health that an attempt made: the start or the end of an incident. */
export type HealthChange =
	| { kind: 'failing'; consecutiveFailures: number }
	| { kind: 'recovered'; failingSince: string; failedAttempts: number }
	| null;

/**
 * What the outbox keeps of each endpoint's health: failed attempts in a row and since when it is
 * failing (one incident at a time). Call inside the transaction recording the attempt. Only the
 * outbox writes these columns, so the endpoints last read with no failure are remembered: a
 * delivered attempt to one of them, the usual case, reads and writes nothing.
 */
export class EndpointHealth {
	readonly #sql: Statements;
	readonly #healthy = new Set<string>();

	constructor(db: Database) {
		this.#sql = new Statements(db);
	}

	/** Counts an attempt that delivered (`delivered`) or failed; says when that starts or ends an incident. */
	attempted(webhookId: string, delivered: boolean, at: string): HealthChange {
		if (delivered && this.#healthy.has(webhookId)) return null;
		this.#healthy.delete(webhookId);
		const before = this.#sql
			.of<
				[string],
				{ consecutive_failures: number; failing_since: string | null }
			>('SELECT consecutive_failures, failing_since FROM webhooks WHERE id = ?')
			.get(webhookId);
		if (!before) return null; // deleted meanwhile
		if (delivered) {
			if (before.consecutive_failures === 0 && before.failing_since === null) {
				// Read, not written: a transaction rolled back cannot leave this behind the database.
				if (this.#healthy.size >= HEALTHY_KEPT) this.#healthy.clear();
				this.#healthy.add(webhookId);
				return null;
			}
			this.#sql
				.of<
					[string]
				>('UPDATE webhooks SET consecutive_failures = 0, failing_since = NULL WHERE id = ?')
				.run(webhookId);
			return before.failing_since === null
				? null
				: {
						kind: 'recovered',
						failingSince: before.failing_since,
						failedAttempts: before.consecutive_failures,
					};
		}
		const failures = before.consecutive_failures + 1;
		const starts = before.failing_since === null && failures >= FAILING_AFTER_ATTEMPTS;
		this.#sql
			.of<
				[number, string | null, string]
			>('UPDATE webhooks SET consecutive_failures = ?, failing_since = ? WHERE id = ?')
			.run(failures, starts ? at : before.failing_since, webhookId);
		return starts ? { kind: 'failing', consecutiveFailures: failures } : null;
	}
}
