import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
	IRun,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type { Json } from '../shared/api';
import { EVENT_TYPE_OPTIONS } from '../shared/events';
import { eventsSubtitle } from '../shared/subtitle';
import { apiPath, apiRequestPages, fetchAdminOrgId } from '../shared/transport';

type ActivityEvent = Json<'ActivityEvent'>;

/** What the node remembers between polls (workflow static data). */
interface PollState extends IDataObject {
	/** Id of the newest event seen; every event after it is new. */
	lastEventId?: string;
	lastOccurredAt?: string;
	/**
	 * What each execution it started got, by a key of its own, until that execution has ended: should
	 * n8n stop while one runs (a crash, a kill), the n8n that comes back starts it again.
	 */
	running?: Record<string, IDataObject[]>;
}

/**
 * The executions this n8n process started and is waiting on, by workflow, node and key: one of
 * `running` that this process does not wait on was started by a process that is gone.
 */
const awaitedHere = new Set<string>();

/** The organization's log, and the query that lists only the events the node listens to. */
interface EventLog {
	orgId: string;
	qs: IDataObject;
}

const ALL_EVENTS = '*';
const EVENT_OPTIONS = [{ name: 'All Events', value: ALL_EVENTS }, ...EVENT_TYPE_OPTIONS];
const PAGE_SIZE = 200;
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
		// The API lists only the types asked for: a poll reads no other event of a busy log.
		const log: EventLog = {
			orgId,
			qs: wanted.includes(ALL_EVENTS) ? {} : { types: wanted.join(',') },
		};
		const state = this.getWorkflowStaticData('node') as PollState;

		if (this.getMode() === 'manual') {
			const { value: newest } = await newestFirst.call(this, log, 1).next();
			if (!newest) {
				throw new NodeOperationError(this.getNode(), 'No matching event in the activity log yet', {
					description:
						'Cause one of the selected events (or choose more events), then fetch again.',
				});
			}
			return [this.helpers.returnJsonArray([asItem(newest, orgId)])];
		}

		if (state.lastEventId === undefined) {
			// First poll after activation: remember where the log stands; history is not replayed.
			const { value: newest } = await newestFirst.call(this, log, 1).next();
			if (newest) remember(state, newest);
			else state.lastEventId = '';
			return null;
		}

		// Executions a previous n8n process started and never saw end (it stopped while they ran): again,
		// with the items as plain data (static data hands out objects that watch their changes).
		for (const [key, items] of Object.entries(state.running ?? {}))
			if (!awaitedHere.has(awaitedKey(this, key)))
				emitAndAwait(this, state, JSON.parse(JSON.stringify(items)) as IDataObject[], key);

		const fresh = await eventsAfter.call(this, log, state);
		if (fresh.length === 0) return null;
		// Only now, with every page read, does the position move: a failed poll skips nothing.
		remember(state, fresh[0]);
		const emitted = fresh.reverse().map((event) => asItem(event, orgId));
		const items =
			this.getNodeParameter('output', 'eachEvent') === 'allEvents'
				? [{ events: emitted }]
				: emitted;
		emitAndAwait(this, state, items, fresh[0].id);
		return null;
	}
}

/**
 * Starts an execution with `items` and keeps them in `running` (which n8n stores with the emission)
 * until the execution has ended, whatever its outcome: only an execution that n8n lost when it
 * stopped is started again, by the next process's poll.
 */
function emitAndAwait(
	context: IPollFunctions,
	state: PollState,
	items: IDataObject[],
	key: string,
): void {
	state.running = { ...state.running, [key]: items };
	const awaited = awaitedKey(context, key);
	awaitedHere.add(awaited);
	const ended = context.helpers.createDeferredPromise<IRun | undefined>();
	const forget = () => {
		awaitedHere.delete(awaited);
		const stillRunning = { ...state.running };
		delete stillRunning[key];
		state.running = stillRunning;
	};
	ended.promise.then(forget, forget);
	context.__emit([context.helpers.returnJsonArray(items)], undefined, ended);
}

function awaitedKey(context: IPollFunctions, key: string): string {
	return `${context.getWorkflow().id}\u0000${context.getNode().id}\u0000${key}`;
}

function remember(state: PollState, newest: ActivityEvent): void {
	state.lastEventId = newest.id;
	state.lastOccurredAt = newest.occurred_at;
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

/**
 * Every listened-to event newer than the remembered one, newest first: the log is read back until
 * the remembered event (or, should it not be listed, anything older than it) is reached. A position
 * saved before the API filtered by type may be an event of another type, never listed: then time
 * alone marks where the new events begin.
 */
async function eventsAfter(
	this: IPollFunctions,
	log: EventLog,
	state: PollState,
): Promise<ActivityEvent[]> {
	const fresh: ActivityEvent[] = [];
	for await (const event of newestFirst.call(this, log)) {
		if (event.id === state.lastEventId) break;
		if (state.lastOccurredAt !== undefined && event.occurred_at < state.lastOccurredAt) break;
		fresh.push(event);
	}
	return fresh;
}
