import { isoAt } from '../core/clock.ts';
import { ApiError, notFound } from '../core/errors.ts';
import { pageOf, type Page, type PageRequest } from '../core/paging.ts';
import type {
	ConsumerPosition,
	EventBatchRow,
	EventConsumerRow,
} from '../repositories/event-consumers.ts';
import type { EventRow } from '../repositories/events.ts';
import { BOUNDS } from '../schemas/bounds.ts';
import type {
	EventBatch,
	EventBatchRequest,
	EventBatchTaken,
	EventConsumer,
	EventConsumerCreate,
	EventConsumerDetail,
} from '../schemas/event-consumers.ts';
import { DomainService } from './domain-service.ts';
import { toActivityEvent } from './event-log.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Readers of the activity log whose position the API keeps, as Kafka keeps a consumer group's
 * offsets: a reader takes the new events as a batch, and the batch stays open until the reader says
 * its work is done. A batch its reader never finished (the reader stopped: n8n crashed or was
 * killed) is handed out again to the next reader that does not name it as its own work in progress.
 * So every event is handed out until its work is done (at least once), and once only to a reader
 * that finishes it. Reading is not a change of the organization: it records no activity event
 * (which a reader of every type would then read).
 */
export class EventConsumerService extends DomainService {
	/** A new consumer, at `start`. */
	create(orgId: string, request: EventConsumerCreate): EventConsumer {
		return this.transaction(() => {
			if (this.repos.eventConsumers.find(orgId, request.id))
				throw new ApiError(
					'consumer_exists',
					'This organization already has an event consumer with this id; it reads on from where it stands.',
				);
			const { max } = BOUNDS.eventConsumers;
			if (this.repos.eventConsumers.count(orgId) >= max)
				throw new ApiError(
					'consumer_limit_reached',
					`This organization already has ${max} event consumers, the most it may have. Delete one that no longer reads (GET /orgs/{orgId}/event-consumers lists them).`,
				);
			const now = this.nowIso();
			return this.#toConsumer(
				this.repos.eventConsumers.insert({
					org_id: orgId,
					id: request.id,
					description: request.description || null,
					event_types: null,
					...this.#startPosition(orgId, request.start),
					created_at: now,
					last_read_at: now,
				}),
			);
		});
	}

	/** The consumer's next batch of new events, with the open batches its reader does not name as its own in `in_progress`. */
	takeBatch(orgId: string, consumerId: string, request: EventBatchRequest): EventBatchTaken {
		return this.transaction(() => {
			const now = this.nowIso();
			const consumer = this.#existing(orgId, consumerId);
			let position = positionOf(consumer);
			let batch = this.repos.eventConsumers.findBatch(consumer.seq, request.batch_id);
			if (!batch && this.#hasRoomForBatch(consumer)) {
				const taken = this.#newEvents(consumer, request);
				position = taken.position;
				if (taken.events.length > 0) {
					const seqs = taken.events.map((event) => event.seq);
					this.repos.eventConsumers.insertBatch(consumer.seq, request.batch_id, seqs, now);
					batch = this.repos.eventConsumers.findBatch(consumer.seq, request.batch_id);
				}
			}
			const yours = new Set([...request.in_progress, request.batch_id]);
			const unfinished = this.repos.eventConsumers
				.openBatches(consumer.seq)
				.filter((open) => !yours.has(open.id));
			for (const open of unfinished)
				this.repos.eventConsumers.handedOutAgain(consumer.seq, open.id);
			this.repos.eventConsumers.recordRead({
				seq: consumer.seq,
				event_types: request.event_types ? JSON.stringify(request.event_types) : null,
				...position,
				last_read_at: now,
			});
			return {
				consumer: this.#toConsumer(this.repos.eventConsumers.find(orgId, consumerId)!),
				batch: batch ? this.#toBatch(batch) : null,
				unfinished: unfinished.map((open) =>
					this.#toBatch({ ...open, attempts: open.attempts + 1 }),
				),
			};
		});
	}

	/** Closes a batch: its work is done. A batch that is not open (done already) is left as it is. */
	finishBatch(orgId: string, consumerId: string, batchId: string): void {
		this.transaction(() => {
			const consumer = this.#existing(orgId, consumerId);
			this.repos.eventConsumers.deleteBatch(consumer.seq, batchId);
		});
	}

	list(orgId: string, page: PageRequest): Page<EventConsumer> {
		return pageOf(
			page,
			'ascending',
			(after, limit) => this.repos.eventConsumers.page(orgId, after, limit),
			(row) => this.#toConsumer(row),
		);
	}

	get(orgId: string, consumerId: string): EventConsumerDetail {
		const consumer = this.#existing(orgId, consumerId);
		return {
			...this.#toConsumer(consumer),
			batches: this.repos.eventConsumers.openBatches(consumer.seq).map((open) => ({
				id: open.id,
				taken_at: open.taken_at,
				attempts: open.attempts,
				event_ids: this.repos.events.bySeqs(JSON.parse(open.event_seqs)).map((event) => event.id),
			})),
		};
	}

	/** Forgets the consumer and its open batches: a reader with its id begins again, at its `start`. */
	delete(orgId: string, consumerId: string): void {
		this.transaction(() => this.repos.eventConsumers.delete(this.#existing(orgId, consumerId).seq));
	}

	/** Deletes the consumers that have not read for the idle bound (their reader is gone); how many. */
	deleteIdle(): number {
		const before = isoAt(this.clock.now() - BOUNDS.eventConsumers.idleDays * DAY_MS);
		return this.transaction(() => {
			const idle = this.repos.eventConsumers.idleBefore(before);
			for (const seq of idle) this.repos.eventConsumers.delete(seq);
			return idle.length;
		});
	}

	#existing(orgId: string, consumerId: string): EventConsumerRow {
		const consumer = this.repos.eventConsumers.find(orgId, consumerId);
		if (!consumer) throw notFound('Event consumer');
		return consumer;
	}

	/** Where a new consumer begins: after the event asked for, else before the time asked for, else after the newest event. */
	#startPosition(orgId: string, start: EventConsumerCreate['start']): ConsumerPosition {
		const after = start?.after_event_id && this.repos.events.find(orgId, start.after_event_id);
		if (after) return positionAt(after);
		if (start?.after !== undefined)
			return positionAt(this.repos.events.lastBefore(orgId, start.after));
		return positionAt(this.repos.events.newest(orgId));
	}

	#hasRoomForBatch(consumer: EventConsumerRow): boolean {
		return (
			this.repos.eventConsumers.countOpenBatches(consumer.seq) <
			BOUNDS.eventConsumers.openBatches.max
		);
	}

	/**
	 * The first `limit` events of the consumer's types after its position, and where it stands
	 * after them: at the last one when the batch is full, else at the organization's newest event,
	 * so that the next read does not pass again over events of other types.
	 */
	#newEvents(
		consumer: EventConsumerRow,
		request: EventBatchRequest,
	): { events: EventRow[]; position: ConsumerPosition } {
		const events = this.repos.events.pageOldestFirst(
			consumer.org_id,
			consumer.position_seq,
			request.limit,
			request.event_types,
		);
		if (events.length === request.limit) return { events, position: positionAt(events.at(-1)) };
		const newest = this.repos.events.newest(consumer.org_id);
		const moved = newest !== undefined && newest.seq > consumer.position_seq;
		return { events, position: moved ? positionAt(newest) : positionOf(consumer) };
	}

	#toConsumer(row: EventConsumerRow): EventConsumer {
		return {
			id: row.id,
			description: row.description,
			event_types: row.event_types === null ? null : JSON.parse(row.event_types),
			position:
				row.position_event_id !== null && row.position_occurred_at !== null
					? { event_id: row.position_event_id, occurred_at: row.position_occurred_at }
					: null,
			open_batches: this.repos.eventConsumers.countOpenBatches(row.seq),
			created_at: row.created_at,
			last_read_at: row.last_read_at,
		};
	}

	#toBatch(row: EventBatchRow): EventBatch {
		return {
			id: row.id,
			events: this.repos.events.bySeqs(JSON.parse(row.event_seqs)).map(toActivityEvent),
			taken_at: row.taken_at,
			attempts: row.attempts,
		};
	}
}

function positionOf(consumer: EventConsumerRow): ConsumerPosition {
	const { position_seq, position_event_id, position_occurred_at } = consumer;
	return { position_seq, position_event_id, position_occurred_at };
}

/** A consumer standing at `event`: the events after it are new; at the log's start when there is none. */
function positionAt(event: EventRow | undefined): ConsumerPosition {
	return {
		position_seq: event?.seq ?? 0,
		position_event_id: event?.id ?? null,
		position_occurred_at: event?.occurred_at ?? null,
	};
}
