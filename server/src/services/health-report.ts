import { isoAt } from '../core/clock.ts';
import { BUCKET_MS, type AttemptBucket } from '../outbox/attempt-buckets.ts';
import type { HealthWindow } from '../schemas/webhook-health.ts';

const HOUR_MS = 60 * 60 * 1000;

/** What `GET …/health` reads from the buckets: since when, for the last day. */
export function dayAgo(now: number): number {
	return startOf(now, HOUR_MS) - 23 * HOUR_MS;
}

/**
 * The last hour (12 points of 5 minutes, the current one included) and the last day (24 points
 * of an hour, the current one included) of an endpoint's attempts, from its buckets since `dayAgo`.
 */
export function healthWindows(
	buckets: readonly AttemptBucket[],
	now: number,
): { last_hour: HealthWindow; last_day: HealthWindow } {
	return {
		last_hour: windowOf(buckets, startOf(now, BUCKET_MS) - 11 * BUCKET_MS, BUCKET_MS, 12),
		last_day: windowOf(buckets, dayAgo(now), HOUR_MS, 24),
	};
}

function windowOf(
	buckets: readonly AttemptBucket[],
	from: number,
	pointMs: number,
	points: number,
): HealthWindow {
	const sums = Array.from({ length: points }, (_, i) => ({
		start: from + i * pointMs,
		attempts: 0,
		delivered: 0,
		delivered_ms: 0,
	}));
	for (const bucket of buckets) {
		const point = sums[Math.floor((bucket.start - from) / pointMs)];
		if (!point) continue; // before the window
		point.attempts += bucket.attempts;
		point.delivered += bucket.delivered;
		point.delivered_ms += bucket.delivered_ms;
	}
	const total = sums.reduce(
		(sum, point) => ({
			attempts: sum.attempts + point.attempts,
			delivered: sum.delivered + point.delivered,
			delivered_ms: sum.delivered_ms + point.delivered_ms,
		}),
		{ attempts: 0, delivered: 0, delivered_ms: 0 },
	);
	return {
		attempts: total.attempts,
		delivered: total.delivered,
		success_rate: total.attempts === 0 ? null : total.delivered / total.attempts,
		mean_answer_ms: meanOf(total),
		points: sums.map((point) => ({
			start: isoAt(point.start),
			attempts: point.attempts,
			delivered: point.delivered,
			mean_answer_ms: meanOf(point),
		})),
	};
}

const meanOf = ({ delivered, delivered_ms }: { delivered: number; delivered_ms: number }) =>
	delivered === 0 ? null : Math.round(delivered_ms / delivered);

const startOf = (time: number, spanMs: number) => time - (time % spanMs);
