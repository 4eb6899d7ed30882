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
	#onDeliveriesQueued: () => void = () => {};

	constructor(repos: Repositories, clock: Clock) {
		this.#repos = repos;
		this.#clock = clock;
	}

	/**
	 * Called when an event queued webhook deliveries, inside the transaction that records it: the
	 * listener must only schedule work for later (the dispatcher wakes on the next turn of the event
	 * loop, after the transaction has committed).
	 */
	onDeliveriesQueued(listener: () => void): void {
		this.#onDeliveriesQueued = listener;
	}

	/** Records the event and, in the same transaction, one webhook delivery per subscribed endpoint (the outbox). */
	record(actor: Actor, type: EventType, data: Record<string, unknown>): ActivityEvent {
		const now = this.#clock.now();
		const event: ActivityEvent = {
			id: newResourceId(now),
			type,
			actor: actor.email,
			occurred_at: isoAt(now),
			data,
		};
		this.#repos.events.insert({ ...event, org_id: actor.orgId, data: JSON.stringify(data) });
		if (this.#repos.deliveries.enqueue({ id: event.id, org_id: actor.orgId, type }, now) > 0) {
			this.#onDeliveriesQueued();
		}
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

function toActivityEvent(row: EventRow): ActivityEvent {
	return {
		id: row.id,
		type: row.type as EventType,
		actor: row.actor,
		occurred_at: row.occurred_at,
		data: JSON.parse(row.data) as Record<string, unknown>,
	};
}
