import type { Database } from 'better-sqlite3';
import type { Clock } from '../../server/src/core/clock.ts';
import { createOutbox } from '../../server/src/outbox/delivery-side.ts';
import type { Outbox } from '../../server/src/outbox/outbox.ts';
import { DeliveryScheduler } from '../../server/src/outbox/scheduler.ts';
import { outcomeOf } from '../../server/src/outbox/sender.ts';
import type { SendOutcome } from '../../server/src/outbox/types.ts';

/**
 * The outbox over the test's database, driven by the test as its dispatcher would drive it: claim
 * what is due, record each answer. The request side's services share the database.
 */
export function outboxOn(
	db: Database,
	options: { retryScheduleSeconds: readonly number[]; clock?: Clock },
): Outbox {
	return createOutbox(db, options);
}

/** A scheduler that lets `total` sends start, `perEndpoint` to one endpoint (and nothing in flight yet). */
export function room(total: number, perEndpoint = total): DeliveryScheduler {
	return new DeliveryScheduler({ total, perEndpoint, perOrg: total });
}

/** What the sender makes of an answer with `statusCode` and `headers` (an empty body) at `now`. */
export function answered(
	statusCode: number,
	headers: Record<string, string> = {},
	now = Date.now(),
): SendOutcome {
	return outcomeOf(statusCode, { headers, body: '', bodyTruncated: false }, false, now);
}
