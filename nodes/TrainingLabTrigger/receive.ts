import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import type { DeliveryBody, EventType } from '../shared/api';
import { giveUpAfterMs, selectedEvents, triggerOptions } from './description';
import { claimDelivery, retryAfterSeconds } from './repeatGuard';
import { signatureProblem } from './signature';
import { acceptedSecrets, type StoredEndpoint } from './storedEndpoint';

/**
 * The header the trigger answers every delivery it took with: the API counts only such an answer
 * as delivered (the endpoint requires receipts), not one n8n gave while starting up, nor a proxy's.
 */
const RECEIPT_HEADER = 'webhook-receipt';

/**
 * Each field of a delivery's body, in the order of the output item: those every delivery carries,
 * and those it carries only when they apply (a sample event, a resend a person asked for). Typed by
 * the API's schema of the body, so a field it adds or renames fails the type check until it is here.
 */
const DELIVERY_FIELDS: Record<keyof DeliveryBody, 'always' | 'when present'> = {
	id: 'always',
	type: 'always',
	occurred_at: 'always',
	org_id: 'always',
	actor: 'always',
	data: 'always',
	test: 'when present',
	resend: 'when present',
};

/**
 * A delivery arrives: verified (signature, timestamp), filtered (its type, test events), kept from
 * running twice in this process (a repeat of one running or answered), then handed to the workflow
 * as one item.
 */
export async function receiveDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const request = this.getRequestObject();
	const response = this.getResponseObject();
	const now = Date.now();
	const secrets = acceptedSecrets(this.getWorkflowStaticData('node') as StoredEndpoint, now);
	const rawBody =
		(request as unknown as { rawBody?: Buffer }).rawBody ?? JSON.stringify(this.getBodyData());
	const problem =
		secrets.length > 0
			? signatureProblem(secrets, request.headers, rawBody, Math.floor(now / 1000))
			: 'this workflow has no registered webhook endpoint';
	if (problem !== null) {
		this.logger.warn(`Training Lab Trigger: delivery refused (${problem})`);
		response.status(401).json({ error: 'Invalid webhook signature' });
		return { noWebhookResponse: true };
	}
	const eventId = request.headers['webhook-id'] as string;
	// Whatever the answer (n8n's own, once the workflow has finished, included), it is this
	// trigger's: a 2xx with it is a delivery, any other answer a failed attempt.
	response.setHeader(RECEIPT_HEADER, eventId);

	const event = this.getBodyData();
	if (!selectedEvents.call(this).includes(event.type as EventType)) {
		response.status(200).json({ received: true, ignored: true });
		return { noWebhookResponse: true };
	}
	const listening = this.getMode() === 'manual';
	if (event.test === true && !listening && !triggerOptions.call(this).runOnTestEvents) {
		response.status(200).json({ received: true, ignored: 'test event' });
		return { noWebhookResponse: true };
	}
	// A resend a person asked for is a delivery of its own, which runs again; its automatic
	// retries, like those of the first delivery, do not.
	const delivery = typeof event.resend === 'number' ? `${eventId}#${event.resend}` : eventId;
	const seen = claimDelivery(this, delivery, now, giveUpAfterMs.call(this));
	if (seen === 'done') {
		response.status(200).json({ received: true, duplicate: true });
		return { noWebhookResponse: true };
	}
	if (seen === 'running') {
		// Not 2xx: should the running execution be lost, the API's next attempt runs the event. The
		// API tries again when Retry-After says, not at the next step of its schedule (minutes).
		response
			.status(503)
			.set('Retry-After', String(retryAfterSeconds(this, delivery, now)))
			.json({ error: 'This event is still being executed; deliver it again later' });
		return { noWebhookResponse: true };
	}
	const output: IDataObject = { webhook_id: eventId };
	for (const [field, when] of Object.entries(DELIVERY_FIELDS))
		if (when === 'always' || event[field] !== undefined) output[field] = event[field];
	return { workflowData: [this.helpers.returnJsonArray([output])] };
}
