import type { Consumer } from './consumer';

/**
 * The batches this n8n process works on, by consumer: handed to an execution that has not ended,
 * or whose end the API has not been told yet. The trigger names them to the API as its own when it
 * takes the next batch, so only a batch that no process here works on (n8n stopped while it ran)
 * comes back, to be started again. Kept in the module, so it outlives a save that registers the
 * poller again (n8n 1.x and 2.6) and ends with the process.
 */
const working = new Map<string, Set<string>>();
/** Batches whose executions ended, not yet reported done (the API could not be reached). */
const unreported = new Map<string, Set<string>>();

const keyOf = (consumer: Consumer) => `${consumer.orgId}\u0000${consumer.id}`;

function setOf(map: Map<string, Set<string>>, consumer: Consumer): Set<string> {
	const key = keyOf(consumer);
	let set = map.get(key);
	if (!set) map.set(key, (set = new Set()));
	return set;
}

/**
 * Marks a batch as this process's work; false when it is already (another poll of the same node,
 * running at the same time, took it first). Mark a batch before asking for it, so that a poll
 * running meanwhile does not take it for one a stopped process left.
 */
export function claimBatch(consumer: Consumer, batchId: string): boolean {
	const mine = setOf(working, consumer);
	if (mine.has(batchId)) return false;
	mine.add(batchId);
	return true;
}

/** The batch is not this process's work after all (the API handed out nothing under its id). */
export function releaseBatch(consumer: Consumer, batchId: string): void {
	setOf(working, consumer).delete(batchId);
}

/** Every batch this process works on, to name to the API as its own. */
export function batchesInProgress(consumer: Consumer): string[] {
	return [...setOf(working, consumer)];
}

/** The batch's execution ended and the API was told: nothing of it is left here. */
export function batchReported(consumer: Consumer, batchId: string): void {
	setOf(working, consumer).delete(batchId);
	setOf(unreported, consumer).delete(batchId);
}

/** The batch's execution ended, but the API could not be told: it stays this process's until it is. */
export function batchUnreported(consumer: Consumer, batchId: string): void {
	setOf(unreported, consumer).add(batchId);
}

/** The batches whose end the API still has to be told of. */
export function unreportedBatches(consumer: Consumer): string[] {
	return [...setOf(unreported, consumer)];
}
