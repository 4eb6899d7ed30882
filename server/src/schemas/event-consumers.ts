import { z } from 'zod';
import { BOUNDS } from './bounds.ts';
import { listQuery, Timestamp, TimestampInput, Uuid } from './common.ts';
import { ActivityEvent, EventType } from './events.ts';

export const EventConsumerParams = z.object({ orgId: Uuid, consumerId: Uuid });
export const EventBatchParams = EventConsumerParams.extend({ batchId: Uuid });

export const EventConsumerListQuery = listQuery(100);

const { batchSize, inProgress } = BOUNDS.eventConsumers;

export const EventConsumerCreate = z.object({
	id: Uuid.meta({
		description:
			"The consumer's id, chosen by its reader (the n8n Activity Trigger derives it from its workflow and node), so that the reader finds its consumer again without keeping anything.",
	}),
	description: z
		.string()
		.trim()
		.max(BOUNDS.name.max)
		.optional()
		.meta({ description: 'Who reads, in words (shown in the list of consumers).' }),
	start: z
		.object({
			after_event_id: Uuid.optional().meta({
				description: 'Begin after this event (of any type) of the activity log.',
			}),
			after: TimestampInput.optional().meta({
				description:
					'Begin with the events that occurred at or after this time, when `after_event_id` is not given or no longer in the log.',
			}),
		})
		.optional()
		.meta({
			description:
				'Where the consumer begins. Left out: after the newest event (the history before is not handed out).',
		}),
});
export type EventConsumerCreate = z.output<typeof EventConsumerCreate>;

export const EventBatchRequest = z.object({
	batch_id: Uuid.meta({
		description:
			'The id the new batch gets, chosen by the reader. Asking again with the same id (an answer that was lost) hands out the same batch again rather than taking new events.',
	}),
	event_types: z
		.array(EventType)
		.min(1)
		.max(EventType.options.length)
		.transform((types) => [...new Set(types)])
		.optional()
		.meta({ description: 'Only events of these types; every type when left out.' }),
	limit: z
		.int()
		.min(1)
		.max(batchSize.max)
		.default(batchSize.default)
		.meta({
			description: `At most this many events in the batch, 1–${batchSize.max} (default ${batchSize.default}); the rest wait for the next batch.`,
		}),
	in_progress: z.array(Uuid).max(inProgress.max).default([]).meta({
		description:
			'The open batches the reader is still working on. Every other open batch was handed out to a reader that stopped before it said the batch was done (a crash): those are handed out again, in `unfinished`.',
	}),
});
export type EventBatchRequest = z.output<typeof EventBatchRequest>;

export const EventBatch = z
	.object({
		id: Uuid,
		events: z.array(ActivityEvent).meta({ description: 'Its events, oldest first.' }),
		taken_at: Timestamp.meta({ description: 'When it was first handed out.' }),
		attempts: z.int().meta({
			description:
				'How often it has been handed out: 1, and one more each time it came back in `unfinished`.',
		}),
	})
	.meta({
		description:
			'Events handed out to a reader together, open until the reader says it is done with them (`DELETE …/batches/{batchId}`).',
	});
export type EventBatch = z.infer<typeof EventBatch>;

const Position = z
	.object({
		event_id: Uuid,
		occurred_at: Timestamp,
	})
	.nullable()
	.meta({
		description:
			'The last event the consumer has passed (of any type): every later one of its types is new to it. Null before the first event, or once that event is past its retention.',
	});

export const EventConsumer = z
	.object({
		id: Uuid,
		description: z.string().nullable(),
		event_types: z
			.array(EventType)
			.nullable()
			.meta({ description: 'The types of its last read; null: every type.' }),
		position: Position,
		open_batches: z.int().meta({
			description: `Batches handed out and not yet done. At ${BOUNDS.eventConsumers.openBatches.max} no new one is handed out until one is done.`,
		}),
		created_at: Timestamp,
		last_read_at: Timestamp.meta({
			description: `When it last asked for a batch. A consumer that has not read for ${BOUNDS.eventConsumers.idleDays} days is deleted.`,
		}),
	})
	.meta({
		description:
			"A reader of the activity log whose position the API keeps, such as an n8n Activity Trigger: it takes the new events in batches and says when each batch's work is done.",
	});
export type EventConsumer = z.infer<typeof EventConsumer>;

export const EventConsumerDetail = EventConsumer.extend({
	batches: z
		.array(
			z.object({
				id: Uuid,
				taken_at: Timestamp,
				attempts: z.int(),
				event_ids: z.array(Uuid).meta({ description: 'Its events, oldest first.' }),
			}),
		)
		.meta({ description: 'The open batches, oldest first.' }),
});
export type EventConsumerDetail = z.infer<typeof EventConsumerDetail>;

export const EventBatchTaken = z.object({
	consumer: EventConsumer,
	batch: EventBatch.nullable().meta({
		description: `The new events since the consumer's position, as a batch that is now open; null when there are none (or ${BOUNDS.eventConsumers.openBatches.max} batches are open).`,
	}),
	unfinished: z.array(EventBatch).meta({
		description:
			'Open batches that are not in `in_progress`: handed out before to a reader that stopped, and now to this one. Oldest first.',
	}),
});
export type EventBatchTaken = z.infer<typeof EventBatchTaken>;
