import type { IWebhookFunctions } from 'n8n-workflow';
import { runKey } from '../shared/runKey';

/**
 * The deliveries this n8n process has started executions for, by trigger and delivery (the event's
 * `webhook-id`, and which resend a person asked for, if one): a repeat of a delivery whose execution
 * is still running, or has finished and been answered 2xx, starts nothing. The API repeats a delivery whose answer it did not get in time — an execution
 * held up while n8n started, or longer than the API's timeout — and without this the event would run
 * twice. Kept in memory, so per process: after a restart, or behind several webhook processes, a
 * repeat can still run twice (at least once, as the API promises).
 */
const seen = new Map<string, { state: Seen; at: number }>();

// The API's default retry schedule spans about 27.5 hours; remember a little longer, and at most this many.
const REMEMBER_MS = 48 * 60 * 60 * 1000;
const MAX_REMEMBERED = 10_000;
export type Seen = 'new' | 'running' | 'done';

/**
 * What this process knows of the delivery `deliveryKey` for this trigger; a new one is recorded as running
 * until n8n answers the delivery: done when the answer is 2xx, forgotten otherwise (so that the API's
 * next attempt runs it again). A repeat is refused (503) while the first execution is unanswered, for
 * `giveUpAfterMs` at most.
 */
export function claimDelivery(
	context: IWebhookFunctions,
	deliveryKey: string,
	now: number,
	giveUpAfterMs: number,
): Seen {
	forgetOlderThan(now - REMEMBER_MS);
	const key = runKey(context, deliveryKey);
	const known = seen.get(key);
	// An execution unanswered for this long may never be (its queue job lost with a Redis that keeps
	// nothing): run the event again rather than refuse it until the API gives up.
	const abandoned = known?.state === 'running' && now - known.at > giveUpAfterMs;
	if (known && !abandoned) return known.state;
	const claim = { state: 'running' as Seen, at: now };
	seen.delete(key);
	seen.set(key, claim);
	while (seen.size > MAX_REMEMBERED) seen.delete(seen.keys().next().value!);
	whenAnswered(context, (status) => {
		if (seen.get(key) !== claim) return; // a later claim took over (this one was abandoned)
		if (status >= 200 && status < 300) claim.state = 'done';
		else seen.delete(key);
	});
	return 'new';
}

/**
 * The `Retry-After` (seconds) of the 503 refusing a repeat of a delivery whose execution is running:
 * half the time it has run, from 2 s to 60 s, so a short execution is asked about again seconds
 * after it ends and a long one is not asked about every few seconds.
 */
export function retryAfterSeconds(
	context: IWebhookFunctions,
	deliveryKey: string,
	now: number,
): number {
	const since = seen.get(runKey(context, deliveryKey))?.at ?? now;
	return Math.min(60, Math.max(2, Math.ceil((now - since) / 2000)));
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
