import { defineListRoute, defineRoute } from '../http/route.ts';
import { BOUNDS } from '../schemas/bounds.ts';
import {
	EventBatchParams,
	EventBatchRequest,
	EventBatchTaken,
	EventConsumer,
	EventConsumerCreate,
	EventConsumerDetail,
	EventConsumerListQuery,
	EventConsumerParams,
} from '../schemas/event-consumers.ts';
import { OrgParams } from '../schemas/orgs.ts';

const { max, idleDays, openBatches } = BOUNDS.eventConsumers;

export const eventConsumerRoutes = [
	defineRoute({
		method: 'post',
		path: '/orgs/{orgId}/event-consumers',
		operationId: 'createEventConsumer',
		tag: 'Activity log',
		summary: 'Create an event consumer: a reader of the activity log whose position the API keeps',
		description:
			'For readers that poll the activity log, such as the n8n Activity Trigger. The reader chooses the id, so that ' +
			'it finds its consumer again without storing anything; `start` says where it begins (by default after the ' +
			`newest event). An organization has at most ${max}; one that has not read for ${idleDays} days is deleted. ` +
			'Records no activity event.',
		access: 'admin',
		params: OrgParams,
		body: EventConsumerCreate,
		success: { status: 201, description: 'The new consumer.', schema: EventConsumer },
		errors: ['consumer_exists', 'consumer_limit_reached'],
		handle: ({ services, caller, body }) => services.eventConsumers.create(caller.org.id, body),
	}),
	defineRoute({
		method: 'post',
		path: '/orgs/{orgId}/event-consumers/{consumerId}/batches',
		operationId: 'takeEventBatch',
		tag: 'Activity log',
		summary: "Take a consumer's next batch of new events",
		description:
			"The events of the types asked for since the consumer's position are handed out as a batch, and its position moves past " +
			'them; the batch stays open until the reader says its work is done (`DELETE …/batches/{batchId}`). Open ' +
			'batches that the reader does not name in `in_progress` were handed out to a reader that stopped before it ' +
			'finished them (a crash): they come back in `unfinished`, so that every event is worked on until it is done. ' +
			`While ${openBatches.max} batches are open no new one is handed out. Reading records no activity event.`,
		access: 'admin',
		params: EventConsumerParams,
		body: EventBatchRequest,
		success: {
			status: 200,
			description: 'The new batch (or null), the unfinished ones and the consumer.',
			schema: EventBatchTaken,
		},
		handle: ({ services, caller, params, body }) =>
			services.eventConsumers.takeBatch(caller.org.id, params.consumerId, body),
	}),
	defineRoute({
		method: 'delete',
		path: '/orgs/{orgId}/event-consumers/{consumerId}/batches/{batchId}',
		operationId: 'finishEventBatch',
		tag: 'Activity log',
		summary: 'Say that the work of a batch is done',
		description:
			'The batch is closed and never handed out again. A batch that is not open (done already) answers 204 too.',
		access: 'admin',
		params: EventBatchParams,
		success: { status: 204, description: 'Done.' },
		handle: ({ services, caller, params }) =>
			services.eventConsumers.finishBatch(caller.org.id, params.consumerId, params.batchId),
	}),
	defineListRoute({
		path: '/orgs/{orgId}/event-consumers',
		operationId: 'listEventConsumers',
		tag: 'Activity log',
		summary: 'List the event consumers',
		description: `The readers of the activity log whose position the API keeps; one that has not read for ${idleDays} days is deleted.`,
		access: 'admin',
		params: OrgParams,
		query: EventConsumerListQuery,
		success: { description: 'A page of consumers.', schema: EventConsumer },
		handle: ({ services, caller, page }) => services.eventConsumers.list(caller.org.id, page),
	}),
	defineRoute({
		method: 'get',
		path: '/orgs/{orgId}/event-consumers/{consumerId}',
		operationId: 'getEventConsumer',
		tag: 'Activity log',
		summary: 'Get an event consumer with its open batches',
		access: 'admin',
		params: EventConsumerParams,
		success: { status: 200, description: 'The consumer.', schema: EventConsumerDetail },
		handle: ({ services, caller, params }) =>
			services.eventConsumers.get(caller.org.id, params.consumerId),
	}),
	defineRoute({
		method: 'delete',
		path: '/orgs/{orgId}/event-consumers/{consumerId}',
		operationId: 'deleteEventConsumer',
		tag: 'Activity log',
		summary: 'Delete an event consumer',
		description:
			'Its position and open batches are forgotten; its reader, finding it gone, creates it anew.',
		access: 'admin',
		params: EventConsumerParams,
		success: { status: 204, description: 'Deleted.' },
		handle: ({ services, caller, params }) =>
			services.eventConsumers.delete(caller.org.id, params.consumerId),
	}),
];
