import type { Database } from 'better-sqlite3';
import { systemClock, type Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { createRepositories } from '../repositories/index.ts';
import { DeliveryMetrics } from '../observability/delivery-metrics.ts';
import { EventLog } from '../services/event-log.ts';
import { Tracing } from '../observability/tracing.ts';
import { WebhookDispatcher, type DispatcherOptions } from './dispatcher.ts';
import type { OutboxNotice } from './notice.ts';
import { Outbox } from './outbox.ts';

export interface OutboxOptions {
	/** Delays between delivery attempts (`WEBHOOK_RETRY_SCHEDULE_S`). */
	retryScheduleSeconds: readonly number[];
	clock?: Clock;
	random?: () => number;
	/** Told when recording an attempt made deliveries due (a `webhook.disabled` event, say). */
	notice?: OutboxNotice;
	/** Counts the attempts it records. */
	metrics?: DeliveryMetrics;
	/** Each attempt a span of its event's trace, sending that trace on (traceparent). */
	tracing?: Tracing;
}

/** The outbox over its own connection `db`: its store, its rules, and the activity log it records the server's own events in. */
export function createOutbox(db: Database, options: OutboxOptions): Outbox {
	const repos = createRepositories(db);
	const clock = options.clock ?? systemClock;
	const notice = options.notice ?? { deliveriesQueued: () => {} };
	const events = new EventLog(repos, clock, notice, options.tracing);
	const deps = { db, repos, clock, outbox: notice, events };
	return new Outbox(deps, options);
}

/**
 * Everything that delivers webhooks: the outbox and its dispatcher, which the outbox tells of new
 * deliveries, and, with `counted` (`/metrics` is on), what they count.
 */
export function createDeliverySide(
	db: Database,
	options: OutboxOptions & DispatcherOptions & { counted: boolean },
	logger: Logger,
): { outbox: Outbox; dispatcher: WebhookDispatcher; metrics: DeliveryMetrics | undefined } {
	const clock = options.clock ?? systemClock;
	// The outbox tells its dispatcher, made right after it, when recording an attempt queues deliveries.
	const metrics = options.counted ? new DeliveryMetrics(() => dispatcher.inFlight) : undefined;
	const tracing = options.tracing ?? new Tracing();
	const outbox = createOutbox(db, {
		...options,
		metrics,
		tracing,
		notice: { deliveriesQueued: () => dispatcher.deliveriesQueued() },
	});
	const dispatcher = new WebhookDispatcher(outbox, options, logger, clock, tracing);
	return { outbox, dispatcher, metrics };
}
