import { randomUUID } from 'node:crypto';
import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
	IRun,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type { EventType, Json } from '../shared/api';
import { EVENT_TYPE_OPTIONS } from '../shared/events';
import { eventsSubtitle } from '../shared/subtitle';
import { apiPath, apiRequestPages, fetchAdminOrgId, nodeErrorOf } from '../shared/transport';
import {
	batchesInProgress,
	batchReported,
	batchUnreported,
	claimBatch,
	releaseBatch,
	unreportedBatches,
} from './batchesHere';
import { consumerOf, finishBatch, takeBatch, type Consumer, type EventBatch } from './consumer';

type ActivityEvent = Json<'ActivityEvent'>;

/** The organization's log, and the query that lists only the events the node listens to. */
interface EventLog {
	orgId: string;
	qs: IDataObject;
}

const ALL_EVENTS = '*';
const EVENT_OPTIONS = [{ name: 'All Events', value: ALL_EVENTS }, ...EVENT_TYPE_OPTIONS];
const PAGE_SIZE = 200;
/** Events per execution: the most the API hands out in one batch. */
const BATCH_SIZE = 1000;
const eventPages = apiRequestPages<ActivityEvent>;

export class TrainingLabActivityTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Training Lab Activity Trigger',
		name: 'trainingLabActivityTrigger',
		icon: {
			light: 'file:../../icons/trainingLab.svg',
			dark: 'file:../../icons/trainingLab.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: eventsSubtitle(EVENT_OPTIONS),
		description:
			'Starts the workflow on new activity-log events by polling; needs no public URL (unlike the Training Lab Trigger)',
		defaults: { name: 'Training Lab Activity Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'trainingLabApi', required: true }],
		properties: [
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				options: EVENT_OPTIONS,
				default: [ALL_EVENTS],
				required: true,
				description: 'The event types that start the workflow',
			},
			{
				displayName: 'Output',
				name: 'output',
				type: 'options',
				options: [
					{
						name: 'One Item per Event',
						value: 'eachEvent',
						description: 'Each new event is its own item, oldest first',
					},
					{
						name: 'One Item with All New Events',
						value: 'allEvents',
						description: 'A single item whose "events" field lists the new events, oldest first',
					},
				],
				default: 'eachEvent',
			},
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const orgId = await fetchAdminOrgId.call(this, 'The activity log');
		const wanted = this.getNodeParameter('events', []) as string[];
		const types = wanted.includes(ALL_EVENTS) ? undefined : (wanted as EventType[]);

		if (this.getMode() === 'manual') {
			// The API lists only the types asked for: a poll reads no other event of a busy log.
			const log: EventLog = { orgId, qs: types ? { types: types.join(',') } : {} };
			const { value: newest } = await newestFirst.call(this, log, 1).next();
			if (!newest) {
				throw new NodeOperationError(this.getNode(), 'No matching event in the activity log yet', {
					description:
						'Cause one of the selected events (or choose more events), then fetch again.',
				});
			}
			return [this.helpers.returnJsonArray([asItem(newest, orgId)])];
		}

		const consumer = consumerOf(this, orgId);
		for (const batchId of unreportedBatches(consumer)) await reportDone(this, consumer, batchId);
		for (;;) {
			const batchId = randomUUID();
			claimBatch(consumer, batchId);
			let taken;
			try {
				taken = await takeBatch(this, consumer, {
					batch_id: batchId,
					event_types: types,
					limit: BATCH_SIZE,
					in_progress: batchesInProgress(consumer),
				});
			} catch (error) {
				releaseBatch(consumer, batchId);
				throw nodeErrorOf(this, error);
			}
			// Batches whose executions a stopped n8n lost: again, unless a poll running beside this one took them.
			for (const unfinished of taken.unfinished)
				if (claimBatch(consumer, unfinished.id)) startExecution(this, consumer, unfinished);
			if (!taken.batch) {
				releaseBatch(consumer, batchId);
				return null;
			}
			startExecution(this, consumer, taken.batch);
			if (taken.batch.events.length < BATCH_SIZE) return null;
		}
	}
}

/**
 * Starts an execution with the batch's events and tells the API that the batch is done once the
 * execution has ended, whatever its outcome: only a batch whose execution n8n lost when it stopped
 * is handed out again, to the next process's poll.
 */
function startExecution(context: IPollFunctions, consumer: Consumer, batch: EventBatch): void {
	const events = batch.events.map((event) => asItem(event as ActivityEvent, consumer.orgId));
	const items =
		context.getNodeParameter('output', 'eachEvent') === 'allEvents' ? [{ events }] : events;
	const ended = context.helpers.createDeferredPromise<IRun | undefined>();
	const done = () => reportDone(context, consumer, batch.id);
	ended.promise.then(done, done);
	context.__emit([context.helpers.returnJsonArray(items)], undefined, ended);
}

/** Tells the API a batch is done; should that fail, the next poll tells it again, and meanwhile the batch stays this process's. */
async function reportDone(
	context: IPollFunctions,
	consumer: Consumer,
	batchId: string,
): Promise<void> {
	try {
		await finishBatch(context, consumer, batchId);
		batchReported(consumer, batchId);
	} catch {
		batchUnreported(consumer, batchId);
	}
}

/** The output item: the event as the webhook trigger delivers it (with `org_id`). */
function asItem(event: ActivityEvent, orgId: string): IDataObject {
	return {
		id: event.id,
		type: event.type,
		occurred_at: event.occurred_at,
		org_id: orgId,
		actor: event.actor,
		data: event.data,
	};
}

/** The organization's events of the types the node listens to, newest first, a page at a time as the caller goes on. */
async function* newestFirst(
	this: IPollFunctions,
	log: EventLog,
	pageSize = PAGE_SIZE,
): AsyncGenerator<ActivityEvent> {
	const path = apiPath`/orgs/${log.orgId}/events`;
	for await (const page of eventPages.call(this, path, pageSize, { qs: log.qs })) yield* page;
}
