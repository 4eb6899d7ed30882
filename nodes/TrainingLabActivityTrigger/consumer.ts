import { createHash } from 'node:crypto';
import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import type { Schemas } from '../shared/api';
import { runKey } from '../shared/runKey';
import { apiPath, apiRequestAs, nodeErrorOf } from '../shared/transport';

export type EventBatch = Schemas['EventBatch'];
type Taken = Schemas['EventBatchTaken'];
type TakeRequest = Schemas['EventBatchRequest'];
type CreateRequest = Schemas['EventConsumerCreate'];

const requestTaken = apiRequestAs<Taken>;
const requestNothing = apiRequestAs<undefined>;
const requestConsumer = apiRequestAs<Schemas['EventConsumer']>;

/**
 * The trigger's event consumer in the API, which keeps where it stands in the activity log and the
 * batches handed out to it: nothing depends on when n8n stores the workflow's static data.
 */
export interface Consumer {
	orgId: string;
	id: string;
}

/**
 * What the version before the API kept consumers stored in the workflow's static data: where the
 * log stood at its last poll. Read once, to create the consumer there.
 */
interface LegacyPosition extends IDataObject {
	lastEventId?: string;
	lastOccurredAt?: string;
	running?: IDataObject;
}

/**
 * The consumer of this node in this workflow: its id is derived from theirs, so the same node finds
 * it again after a save, a restart or a crash, and a copy of the workflow has its own.
 */
export function consumerOf(context: IPollFunctions, orgId: string): Consumer {
	const name = runKey(context, 'n8n-activity-trigger');
	return { orgId, id: uuidFrom(createHash('sha256').update(name).digest('hex')) };
}

/** A UUID (version 8, RFC 9562) made of the first 122 bits of a hex digest. */
function uuidFrom(hex: string): string {
	const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The consumer's next batch, and the open batches handed out to a process that is gone. A consumer
 * that does not exist yet (the first poll, or one the API deleted) is created first: where the
 * version before it stood, if it left a position, else after the newest event.
 */
export async function takeBatch(
	context: IPollFunctions,
	consumer: Consumer,
	request: TakeRequest,
): Promise<Taken> {
	const path = apiPath`/orgs/${consumer.orgId}/event-consumers/${consumer.id}/batches`;
	const take = () =>
		requestTaken.call(context, 'POST', path, { body: request as unknown as IDataObject });
	try {
		return (await take()).body;
	} catch (error) {
		if (!isApiError(error, 'not_found')) throw nodeErrorOf(context, error);
	}
	await create(context, consumer);
	return (await take()).body;
}

/** Tells the API that the work of a batch is done: it is never handed out again. */
export async function finishBatch(
	context: IPollFunctions,
	consumer: Consumer,
	batchId: string,
): Promise<void> {
	const path = apiPath`/orgs/${consumer.orgId}/event-consumers/${consumer.id}/batches/${batchId}`;
	await requestNothing.call(context, 'DELETE', path);
}

async function create(context: IPollFunctions, consumer: Consumer): Promise<void> {
	const state = context.getWorkflowStaticData('node') as LegacyPosition;
	const workflow = context.getWorkflow();
	const body: CreateRequest = {
		id: consumer.id,
		description:
			`n8n workflow "${workflow.name ?? ''}" (${workflow.id}), node "${context.getNode().name}"`.slice(
				0,
				200,
			),
		start: legacyStart(state),
	};
	try {
		await requestConsumer.call(context, 'POST', apiPath`/orgs/${consumer.orgId}/event-consumers`, {
			body: body as unknown as IDataObject,
		});
	} catch (error) {
		// Another poll of this node created it meanwhile.
		if (!isApiError(error, 'consumer_exists')) throw nodeErrorOf(context, error);
	}
	// The position is the API's from now on.
	delete state.lastEventId;
	delete state.lastOccurredAt;
	delete state.running;
}

/**
 * Where the version before this one stood: after its last event (or, once that is past the log's
 * retention, at its time); an empty string meant "the log was empty", so from its start. Its record
 * of running executions is not taken over: it cannot tell those that ended from those n8n lost,
 * and almost all had ended.
 */
function legacyStart(state: LegacyPosition): CreateRequest['start'] {
	if (state.lastEventId === undefined) return undefined;
	if (state.lastEventId === '') return { after: '1970-01-01T00:00:00.000Z' };
	return {
		...(UUID.test(state.lastEventId) ? { after_event_id: state.lastEventId } : {}),
		...(state.lastOccurredAt ? { after: state.lastOccurredAt } : {}),
	};
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isApiError(error: unknown, code: string): boolean {
	return error instanceof NodeApiError && error.context.apiCode === code;
}
