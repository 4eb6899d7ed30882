import type { EventType } from '../schemas/events.ts';
import type { AttemptCause, DeliveryStatus } from '../schemas/webhooks.ts';

// The outbox's rows: what a delivery is, what its attempts were and how they went.

export interface DeliveryRow {
	seq: number;
	id: string;
	webhook_id: string;
	event_id: string;
	event_type: EventType;
	event_occurred_at: string;
	/** 1 for a test event */
	test: number;
	status: DeliveryStatus;
	attempts: number;
	resends: number;
	next_attempt_at: number | null;
	last_status_code: number | null;
	last_error: string | null;
	last_attempt_at: string | null;
}

/** A claimed delivery with everything needed to send it. */
export interface DueDelivery {
	seq: number;
	id: string;
	attempts: number;
	/** Attempts made before the current retry schedule began (a resend or recovery starts a new one). */
	schedule_start: number;
	/**
	 * Bumped by every change made beside the dispatcher (a resend, a recovery, giving it up when the
	 * endpoint is disabled): an attempt in flight meanwhile does not undo that change.
	 */
	revision: number;
	resends: number;
	url: string;
	secret: string;
	/** The secret a rotation replaced, while it still signs deliveries; else null. */
	previous_secret: string | null;
	/** 1: only a 2xx answer with this delivery's receipt counts as delivered. */
	require_receipt: number;
	webhook_id: string;
	event_id: string;
	event_type: EventType;
	event_actor: string;
	event_occurred_at: string;
	event_data: string;
	/** 1 for a test event */
	event_test: number;
	/** The W3C trace context of the event's recording (null for an event recorded before traces). */
	event_trace_parent: string | null;
	event_trace_state: string | null;
	org_id: string;
	/** What starts this attempt. */
	next_cause: AttemptCause;
	/** While the receiver's `Retry-After` makes early retries: when the schedule's current step falls due. */
	step_due_at: number | null;
	/** Early retries the current step has had. */
	early_retries: number;
}

/** One try of a delivery, as the attempt log lists it. */
export interface AttemptRow {
	delivery_seq: number;
	attempt: number;
	attempted_at: string;
	duration_ms: number;
	status_code: number | null;
	error: string | null;
	cause: AttemptCause;
}

/** One try with the answer it got. */
export interface AttemptDetailRow extends AttemptRow {
	/** JSON of the kept headers; null when no answer came. */
	response_headers: string | null;
	response_body: string | null;
	response_body_truncated: number;
}

/** The receiver's answer to an attempt, as it is kept. */
export interface KeptResponse {
	headers: Record<string, string>;
	body: string;
	bodyTruncated: boolean;
}

/** Which deliveries a page holds; each absent filter lets all through. */
export interface DeliveryFilter {
	statuses?: readonly DeliveryStatus[];
	types?: readonly string[];
	test?: boolean;
	/** Of the event's time: at or after `since`, before `until`. */
	since?: string;
	until?: string;
}

export interface AttemptOutcome {
	status: DeliveryStatus;
	attempts: number;
	next_attempt_at: number | null;
	/** Attempts the current schedule does not count (those before it began, and early retries). */
	schedule_start: number;
	step_due_at: number | null;
	early_retries: number;
	next_cause: AttemptCause;
	last_status_code: number | null;
	last_error: string | null;
	last_attempt_at: string;
}

/** What became of an attempt's answer when it was recorded. */
export type Recorded =
	/** The delivery took the attempt's outcome. */
	| 'applied'
	/**
	 * A resend, a recovery or giving it up came while the attempt was in flight: that change stands,
	 * unless the attempt was delivered (a 2xx counts whatever happened meanwhile).
	 */
	| 'interrupted'
	/** The delivery is gone with its endpoint, deleted while the attempt was in flight. */
	| 'gone';

/**
 * What one attempt came to, as the sender read the receiver's answer: nothing else reads HTTP.
 * `error` says why an attempt failed; `response` is the answer as kept (null when none came).
 */
export type SendOutcome =
	/** A 2xx (with the receipt, where the endpoint requires one). */
	| { kind: 'delivered'; statusCode: number; error: null; response: KeptResponse }
	/** `410 Gone`: the receiver wants nothing more; the endpoint is disabled. */
	| { kind: 'gone'; statusCode: 410; error: string; response: KeptResponse }
	/**
	 * n8n's `404` "The requested webhook … is not registered": the workflow is not active in that n8n
	 * though its trigger never said so (deleted while n8n was down, a database restored, an instance
	 * moved). The endpoint is held until the workflow is activated again.
	 */
	| { kind: 'not_registered'; statusCode: 404; error: string; response: KeptResponse }
	/** A `429` or `503` asking, with `Retry-After`, to be tried again after `afterMs`. */
	| {
			kind: 'retry_after';
			statusCode: number;
			error: string;
			response: KeptResponse;
			afterMs: number;
	  }
	/** Any other answer, a timeout or a connection error: tried again on the schedule. */
	| { kind: 'failed'; statusCode: number | null; error: string; response: KeptResponse | null };
