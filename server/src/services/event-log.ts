import { newResourceId } from '../lib/resource-id.ts';
import { isoAt, type Clock } from '../core/clock.ts';
import { pageOf, type Page, type PageRequest } from '../core/paging.ts';
import type { Repositories } from '../repositories/index.ts';
import type { EventFilter, EventRow } from '../repositories/events.ts';
import type { ActivityEvent, EventData, EventType } from '../schemas/events.ts';
import type { Actor } from '../core/actor.ts';
import type { OutboxNotice } from '../outbox/notice.ts';
import type { Tracing } from '../observability/tracing.ts';

/**
 * The organization's activity log. `record` must be called inside the transaction of the change
 * it describes, so an event exists exactly when its change committed.
 */
export class EventLog {
	readonly #repos: Repositories;
	readonly #clock: Clock;
	readonly #outbox: OutboxNotice;
	readonly #tracing: Tracing | undefined;

	/** With `tracing`, each event is recorded in a span of the active trace, which its deliveries continue. */
	constructor(repos: Repositories, clock: Clock, outbox: OutboxNotice, tracing?: Tracing) {
		this.#repos = repos;
		this.#clock = clock;
		this.#outbox = outbox;
		this.#tracing = tracing;
	}

	/**
	 * Records the event and, in the same transaction, one webhook delivery per subscribed endpoint
	 * (the outbox), which it tells of them.
	 */
	record<T extends EventType>(actor: Actor, type: T, data: EventData<T>): ActivityEvent {
		const now = this.#clock.now();
		const event = this.#insert(actor, type, data, now, false);
		if (this.#repos.outbox.queue.enqueue({ id: event.id, org_id: actor.orgId, type }, now) > 0)
			this.#outbox.deliveriesQueued();
		return event;
	}

	/**
	 * Stores a test event: a sample with the shape of a real one, delivered only to the endpoint that
	 * asked for it (the caller queues that delivery) and never listed in the activity log.
	 */
	recordTest<T extends EventType>(actor: Actor, type: T, data: EventData<T>): ActivityEvent {
		return this.#insert(actor, type, data, this.#clock.now(), true);
	}

	#insert(
		actor: Actor,
		type: EventType,
		data: EventData<EventType>,
		now: number,
		test: boolean,
	): ActivityEvent {
		const event = {
			id: newResourceId(now),
			type,
			actor: actor.email,
			occurred_at: isoAt(now),
			data,
		} as ActivityEvent;
		const tracing = this.#tracing;
		const span = tracing?.startEventSpan(event.id, type);
		const trace = tracing && span ? tracing.headersOf(span) : {};
		this.#repos.events.insert({
			...event,
			org_id: actor.orgId,
			data: JSON.stringify(data),
			test: test ? 1 : 0,
			trace_parent: trace.traceparent ?? null,
			trace_state: trace.tracestate ?? null,
		});
		span?.end();
		return event;
	}

	list(orgId: string, page: PageRequest, filter: EventFilter = {}): Page<ActivityEvent> {
		return pageOf(
			page,
			'descending',
			(after, limit) => this.#repos.events.pageNewestFirst(orgId, after, limit, filter),
			toActivityEvent,
		);
	}
}

export function toActivityEvent(row: EventRow): ActivityEvent {
	return {
		id: row.id,
		type: row.type,
		actor: row.actor,
		occurred_at: row.occurred_at,
		data: JSON.parse(row.data),
	} as ActivityEvent;
}
