import type { Database } from 'better-sqlite3';
import { Statements } from '../db/statements.ts';

/** The span of one bucket: the last hour is 12 of them, the last day 288. */
export const BUCKET_MS = 5 * 60 * 1000;

/** One endpoint's attempts that started in one bucket. */
export interface AttemptBucket {
	/** Unix ms the bucket starts at. */
	start: number;
	attempts: number;
	delivered: number;
	/** Summed answer times of the delivered attempts. */
	delivered_ms: number;
}

/** An attempt as a bucket counts it. */
export interface CountedAttempt {
	webhookId: string;
	startedAt: number;
	delivered: boolean;
	durationMs: number;
}

/**
 * Each endpoint's attempts counted in 5-minute buckets, for its health over the last hour and day
 * (`GET …/webhooks/{webhookId}/health`) without reading the attempt log. The outbox adds each
 * recorded attempt, a batch at a time; buckets older than a day go in the upkeep.
 */
export class AttemptBuckets {
	readonly #sql: Statements;

	constructor(db: Database) {
		this.#sql = new Statements(db);
	}

	/** Counts the attempts, one write per endpoint and bucket; call inside the transaction recording them. */
	add(attempts: readonly CountedAttempt[]): void {
		const sums = new Map<string, AttemptBucket & { webhookId: string }>();
		for (const attempt of attempts) {
			const start = attempt.startedAt - (attempt.startedAt % BUCKET_MS);
			const key = `${attempt.webhookId} ${start}`;
			let sum = sums.get(key);
			if (!sum) {
				sum = { webhookId: attempt.webhookId, start, attempts: 0, delivered: 0, delivered_ms: 0 };
				sums.set(key, sum);
			}
			sum.attempts++;
			if (attempt.delivered) {
				sum.delivered++;
				sum.delivered_ms += Math.max(0, Math.round(attempt.durationMs));
			}
		}
		const upsert = this.#sql.of<AttemptBucket & { webhookId: string }>(
			`INSERT INTO webhook_attempt_buckets (webhook_id, start, attempts, delivered, delivered_ms)
       VALUES (@webhookId, @start, @attempts, @delivered, @delivered_ms)
       ON CONFLICT (webhook_id, start) DO UPDATE SET attempts = attempts + excluded.attempts,
         delivered = delivered + excluded.delivered, delivered_ms = delivered_ms + excluded.delivered_ms`,
		);
		for (const sum of sums.values()) upsert.run(sum);
	}

	/** The endpoint's buckets that start at or after `since` (Unix ms), oldest first. */
	since(webhookId: string, since: number): AttemptBucket[] {
		return this.#sql
			.of<[string, number], AttemptBucket>(
				`SELECT start, attempts, delivered, delivered_ms FROM webhook_attempt_buckets
         WHERE webhook_id = ? AND start >= ? ORDER BY start`,
			)
			.all(webhookId, since);
	}

	/** Deletes every endpoint's buckets that start before `before` (Unix ms); how many. */
	pruneBefore(before: number): number {
		return this.#sql.of<[number]>('DELETE FROM webhook_attempt_buckets WHERE start < ?').run(before)
			.changes;
	}
}
