import { newResourceId } from '../lib/resource-id.ts';
import { isoAt, type Clock } from '../core/clock.ts';
import { pageOf, type Page, type PageRequest } from '../core/paging.ts';
import type { Repositories } from '../repositories/index.ts';
import type { EventRow } from '../repositories/events.ts';
import type { ActivityEvent, EventType } from '../schemas/events.ts';
import type { Actor } from '../core/actor.ts';

/**
 * The organisation's activity log. `record` must be called inside the transaction of the change
 * it describes, so an event exists exactly when its change committed.
 */
export class EventLog {
	readonly #repos: Repositories;
	readonly #clock: Clock;
	#onDeliveriesQueued: (webhookIds: string[]) => void = () => {};

	constructor(repos: Repositories, clock: Clock) {
		this.#repos = repos;
		this.#clock = clock;
	}

	/**
	 * Called with the endpoints that have new deliveries due, inside the transaction that queued them:
	 * the listener must only schedule work for later (the dispatcher wakes on the next turn of the
	 * event loop, after the transaction has committed).
	 */
	onDeliveriesQueued(listener: (webhookIds: string[]) => void): void {
		this.#onDeliveriesQueued = listener;
	}

	/** Tells the listener that deliveries to these endpoints are due; call inside the queuing transaction. */
	deliveriesQueued(webhookIds: string[]): void {
		if (webhookIds.length > 0) this.#onDeliveriesQueued(webhookIds);
	}

	/** Records the event and, in the same transaction, one webhook delivery per subscribed endpoint (the outbox). */
	record(actor: Actor, type: EventType, data: Record<string, unknown>): ActivityEvent {
		const now = this.#clock.now();
		const event = newEvent(actor, type, data, now);
		this.#repos.events.insert({
			...event,
			org_id: actor.orgId,
			data: JSON.stringify(data),
			test: 0,
		});
		this.deliveriesQueued(
			this.#repos.deliveries.enqueue({ id: event.id, org_id: actor.orgId, type }, now),
		);
		return event;
	}

	/**
	 * Stores a test event: a sample with the shape of a real one, delivered only to the endpoint that
	 * asked for it (the caller queues that delivery) and never listed in the activity log.
	 */
	recordTest(actor: Actor, type: EventType, data: Record<string, unknown>): ActivityEvent {
		const event = newEvent(actor, type, data, this.#clock.now());
		this.#repos.events.insert({
			...event,
			org_id: actor.orgId,
			data: JSON.stringify(data),
			test: 1,
		});
		return event;
	}

	list(orgId: string, page: PageRequest): Page<ActivityEvent> {
		return pageOf(
			page,
			'descending',
			(after, limit) => this.#repos.events.pageNewestFirst(orgId, after, limit),
			toActivityEvent,
		);
	}
}

function newEvent(
	actor: Actor,
	type: EventType,
	data: Record<string, unknown>,
	now: number,
): ActivityEvent {
	return { id: newResourceId(now), type, actor: actor.email, occurred_at: isoAt(now), data };
}

function toActivityEvent(row: EventRow): ActivityEvent {
	return {
		id: row.id,
		type: row.type as EventType,
		actor: row.actor,
		occurred_at: row.occurred_at,
		data: JSON.parse(row.data) as Record<string, unknown>,
	};
}
