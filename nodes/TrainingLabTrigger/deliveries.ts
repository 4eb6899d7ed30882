import type { IWebhookFunctions } from 'n8n-workflow';

/**
 * The deliveries this n8n process has started executions for, by trigger and event: a repeat of an
 * event (same `webhook-id`) whose execution is still running, or has finished and been answered
 * 2xx, starts nothing. The API repeats a delivery whose answer it did not get in time — an execution
 * held up while n8n started, or longer than the API's timeout — and without this the event would run
 * twice. Kept in memory, so per process: after a restart, or behind several webhook processes, a
 * repeat can still run twice (at least once, as the API promises).
 */
const seen = new Map<string, { state: 'running' | 'done'; at: number }>();

// The API's default retry schedule spans about 27.5 hours; remember a little longer, and at most this many.
const REMEMBER_MS = 48 * 60 * 60 * 1000;
const MAX_REMEMBERED = 10_000;

export type Seen = 'new' | 'running' | 'done';

/**
 * What this process knows of the event `eventId` for this trigger; a new one is recorded as running
 * until n8n answers the delivery: done when the answer is 2xx, forgotten otherwise (so that the API's
 * next attempt runs it again).
 */
export function claimDelivery(context: IWebhookFunctions, eventId: string, now: number): Seen {
	forgetOlderThan(now - REMEMBER_MS);
	const key = `${context.getWorkflow().id}\u0000${context.getNode().id}\u0000${eventId}`;
	const known = seen.get(key);
	if (known) return known.state;
	seen.set(key, { state: 'running', at: now });
	while (seen.size > MAX_REMEMBERED) seen.delete(seen.keys().next().value!);
	whenAnswered(context, (status) => {
		// Kept in the order claimed, which is the order forgetOlderThan reads.
		if (status >= 200 && status < 300) seen.set(key, { state: 'done', at: now });
		else seen.delete(key);
	});
	return 'new';
}

function forgetOlderThan(limit: number): void {
	for (const [key, entry] of seen) {
		if (entry.at >= limit) break;
		seen.delete(key);
	}
}

/**
 * Calls `answered` with the status n8n answers this delivery with — when the workflow has finished,
 * or on receipt — even if the API has already hung up (then no 'finish' event would come).
 */
function whenAnswered(context: IWebhookFunctions, answered: (status: number) => void): void {
	const response = context.getResponseObject();
	const end = response.end.bind(response);
	response.end = ((...args: Parameters<typeof end>) => {
		answered(response.statusCode);
		return end(...args);
	}) as typeof response.end;
}
