import { isoAt } from '../core/clock.ts';
import { ApiError, notFound } from '../core/errors.ts';
import { pageOf, type Page, type PageRequest } from '../core/paging.ts';
import type { Actor } from '../core/actor.ts';
import type { AttemptDetailRow, AttemptRow, DeliveryFilter, DeliveryRow } from '../outbox/types.ts';
import type { EventType } from '../schemas/events.ts';
import type {
	DeliveryAttemptDetail,
	WebhookDelivery,
	WebhookDeliveryDetail,
	WebhookRecovery,
} from '../schemas/webhooks.ts';
import type { WebhookHealth } from '../schemas/webhook-health.ts';
import { DomainService } from './domain-service.ts';
import { dayAgo, healthWindows } from './health-report.ts';
import { findEndpoint, findSendingEndpoint } from './endpoint-lookup.ts';
import { sampleEventData } from './sample-events.ts';

/**
 * What a person does with an endpoint's deliveries: reads them (listed with filters, or one with
 * every answer, or how they go over the last hour and day), sends a test event, resends one,
 * recovers those that failed.
 */
export class DeliveryOperationService extends DomainService {
	/** Deliveries to the endpoint, newest first. */
	listDeliveries(
		orgId: string,
		webhookId: string,
		page: PageRequest,
		filter: DeliveryFilter = {},
	): Page<WebhookDelivery> {
		const webhook = findEndpoint(this.repos, orgId, webhookId);
		// One read transaction, so each delivery's state and its attempt log agree.
		return this.transaction(() =>
			pageOf(
				page,
				'descending',
				(after, limit) => {
					const rows = this.repos.outbox.attempts.pageNewestFirst(webhook.id, after, limit, filter);
					const logs = this.repos.outbox.attempts.attemptsOf(rows.map((row) => row.seq));
					return rows.map((row) => ({ ...row, attempt_log: logs.get(row.seq) ?? [] }));
				},
				toDelivery,
			),
		);
	}

	/**
	 * How the endpoint is doing: what waits, and its attempts over the last hour and day (success
	 * rate and answer time), from the outbox's buckets.
	 */
	health(orgId: string, webhookId: string): WebhookHealth {
		const webhook = findEndpoint(this.repos, orgId, webhookId);
		const now = this.clock.now();
		return this.transaction(() => {
			const { waiting, oldest_event_at } = this.repos.outbox.backlog.waitingOf(webhook.id);
			const buckets = this.repos.outbox.buckets.since(webhook.id, dayAgo(now));
			return { waiting, oldest_waiting_event_at: oldest_event_at, ...healthWindows(buckets, now) };
		});
	}

	/** One delivery to the endpoint with every attempt and the answer each got. */
	getDelivery(orgId: string, webhookId: string, deliveryId: string): WebhookDeliveryDetail {
		const webhook = findEndpoint(this.repos, orgId, webhookId);
		return this.transaction(() => {
			const row = this.repos.outbox.attempts.find(webhook.id, deliveryId);
			if (!row) throw notFound('Delivery');
			return {
				...toDelivery({ ...row, attempt_log: [] }),
				attempt_log: this.repos.outbox.attempts.attemptDetailsOf(row.seq).map(toAttemptDetail),
			};
		});
	}

	/**
	 * Queues a test event of `eventType` for this endpoint only: a signed sample with every field of a
	 * real event (sample values), marked `test`, and recorded as `webhook.test_sent`. Nothing else in
	 * the organization changes.
	 */
	sendTest(actor: Actor, webhookId: string, eventType: EventType): WebhookDelivery {
		return this.transaction(() => {
			const webhook = findSendingEndpoint(this.repos, actor.orgId, webhookId);
			const subscribed = JSON.parse(webhook.event_types) as EventType[];
			if (!subscribed.includes(eventType)) {
				const message = `The endpoint does not subscribe to ${eventType}; it subscribes to ${subscribed.join(', ')}.`;
				throw new ApiError('validation_failed', message, [{ path: 'event_type', message }]);
			}
			const event = this.events.recordTest(
				actor,
				eventType,
				sampleEventData(eventType, this.nowIso()),
			);
			const deliveryId = this.repos.outbox.queue.insert(webhook.id, event.id, this.clock.now(), {
				cause: 'test',
			});
			this.events.record(actor, 'webhook.test_sent', {
				webhook_id: webhook.id,
				url: webhook.url,
				event_type: eventType,
				event_id: event.id,
				delivery_id: deliveryId,
			});
			this.outbox.deliveriesQueued();
			return this.#delivery(webhook.id, deliveryId);
		});
	}

	/**
	 * Sends a delivery again now, whatever its status: the same event (same id), marked as the n-th
	 * resend a person asked for, on a fresh retry schedule; its earlier attempts stay in its log.
	 */
	resend(actor: Actor, webhookId: string, deliveryId: string): WebhookDelivery {
		return this.transaction(() => {
			const webhook = findSendingEndpoint(this.repos, actor.orgId, webhookId);
			const delivery = this.repos.outbox.attempts.find(webhook.id, deliveryId);
			if (!delivery) throw notFound('Delivery');
			this.repos.outbox.queue.resend(delivery.seq, this.clock.now());
			this.events.record(actor, 'webhook.delivery_resent', {
				webhook_id: webhook.id,
				url: webhook.url,
				delivery_id: delivery.id,
				event_id: delivery.event_id,
				event_type: delivery.event_type,
				resend: delivery.resends + 1,
			});
			this.outbox.deliveriesQueued();
			return this.#delivery(webhook.id, delivery.id);
		});
	}

	/**
	 * Queues again, on a fresh schedule, every failed or given-up delivery of the endpoint whose event
	 * occurred at or after `since` (deliveries kept while it was disabled among them): counted now,
	 * queued by the dispatcher a batch at a time, so that a recovery of any size is answered at once
	 * and holds up no request.
	 */
	recover(actor: Actor, webhookId: string, since: string): WebhookRecovery {
		if (Date.parse(since) > this.clock.now()) {
			const message = 'Must not be in the future.';
			throw new ApiError('validation_failed', `since: ${message}`, [{ path: 'since', message }]);
		}
		return this.transaction(() => {
			const webhook = findSendingEndpoint(this.repos, actor.orgId, webhookId);
			const queued = this.repos.outbox.recoveries.start(webhook.id, since);
			this.events.record(actor, 'webhook.deliveries_recovered', {
				webhook_id: webhook.id,
				url: webhook.url,
				since,
				queued,
			});
			if (queued > 0) this.outbox.deliveriesQueued();
			return { queued, since };
		});
	}

	/** One delivery with its attempt log, as the deliveries list shows it. */
	#delivery(webhookId: string, deliveryId: string): WebhookDelivery {
		const row = this.repos.outbox.attempts.find(webhookId, deliveryId)!;
		return toDelivery({
			...row,
			attempt_log: this.repos.outbox.attempts.attemptsOf([row.seq]).get(row.seq) ?? [],
		});
	}
}

function toDelivery(row: DeliveryRow & { attempt_log: AttemptRow[] }): WebhookDelivery {
	return {
		id: row.id,
		event_id: row.event_id,
		event_type: row.event_type as EventType,
		event_occurred_at: row.event_occurred_at,
		test: row.test === 1,
		resends: row.resends,
		status: row.status,
		attempts: row.attempts,
		last_status_code: row.last_status_code,
		last_error: row.last_error,
		last_attempt_at: row.last_attempt_at,
		next_attempt_at: row.next_attempt_at === null ? null : isoAt(row.next_attempt_at),
		attempt_log: row.attempt_log.map((attempt) => ({
			attempt: attempt.attempt,
			attempted_at: attempt.attempted_at,
			duration_ms: attempt.duration_ms,
			status_code: attempt.status_code,
			error: attempt.error,
			cause: attempt.cause,
		})),
	};
}

function toAttemptDetail(row: AttemptDetailRow): DeliveryAttemptDetail {
	return {
		attempt: row.attempt,
		attempted_at: row.attempted_at,
		duration_ms: row.duration_ms,
		status_code: row.status_code,
		error: row.error,
		cause: row.cause,
		response:
			row.response_headers === null
				? null
				: {
						headers: JSON.parse(row.response_headers) as Record<string, string>,
						body: row.response_body ?? '',
						body_truncated: row.response_body_truncated === 1,
					},
	};
}
