import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

/** How many items are in flight at once when Batching is not set. */
const CONCURRENT_ITEMS = 8;

/** Request Options → Batching, as n8n's HTTP Request node offers it. */
export const batchingOption: INodeProperties = {
	displayName: 'Batching',
	name: 'batching',
	placeholder: 'Add Batching',
	type: 'fixedCollection',
	typeOptions: { multipleValues: false },
	default: { batch: {} },
	description: `Send the items in batches with a pause between them. Without it, ${CONCURRENT_ITEMS} items are in flight at once.`,
	options: [
		{
			displayName: 'Batching',
			name: 'batch',
			values: [
				{
					displayName: 'Items per Batch',
					name: 'batchSize',
					type: 'number',
					typeOptions: { minValue: 1 },
					default: 50,
					description:
						'Input items sent at once; the next batch starts when every item of this one is done',
				},
				{
					displayName: 'Batch Interval (Ms)',
					name: 'batchInterval',
					type: 'number',
					typeOptions: { minValue: 0 },
					default: 1000,
					description: 'Time (in milliseconds) between each batch of requests. 0 for disabled.',
				},
			],
		},
	],
};

interface Batching {
	batchSize?: number;
	batchInterval?: number;
}

/**
 * Runs `work` once for each item index, as Request Options → Batching says: batches of Items per
 * Batch at once with Batch Interval between them, or else at most CONCURRENT_ITEMS at a time. No
 * item starts once `stopped()` holds (an item failed and the node will fail).
 */
export async function forEachItem(
	context: IExecuteFunctions,
	count: number,
	work: (itemIndex: number) => Promise<void>,
	stopped: () => boolean,
): Promise<void> {
	const batching = context.getNodeParameter('requestOptions.batching.batch', 0, {}) as Batching;
	if (!batching.batchSize) return await inPool(0, count, CONCURRENT_ITEMS, work, stopped);
	for (let start = 0; start < count && !stopped(); start += batching.batchSize) {
		if (start > 0 && batching.batchInterval) await sleep(batching.batchInterval);
		const end = Math.min(start + batching.batchSize, count);
		await inPool(start, end, batching.batchSize, work, stopped);
	}
}

/** Items `start`..`end - 1`, at most `size` in flight, each next one started when one is done. */
async function inPool(
	start: number,
	end: number,
	size: number,
	work: (itemIndex: number) => Promise<void>,
	stopped: () => boolean,
): Promise<void> {
	let next = start;
	const worker = async () => {
		while (next < end && !stopped()) await work(next++);
	};
	await Promise.all(Array.from({ length: Math.min(size, end - start) }, worker));
}
