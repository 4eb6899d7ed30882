import type { Span } from '@opentelemetry/api';
import { SpanIds } from './span-ids.ts';

/** Where a recorded span goes once it ends: its thread's ring (span-records.ts). */
export interface SpanSink {
	ended(span: FieldSpan): void;
}

/** Where a request's server span goes as it ends when no span was made for it (request-rows.ts). */
export interface RequestRowSink {
	/**
	 * A request answered (`method`, its `route` template if one matched, its status), which started
	 * at `start` and ended at `end` (ms since the Unix epoch), its span a root whose ids nobody asked
	 * for.
	 */
	requestEnded(
		method: string,
		route: string | undefined,
		statusCode: number,
		start: number,
		end: number,
	): void;
}

const TIME_ORIGIN = performance.timeOrigin;

/** `performance.now()`'s `at` (now by default), in milliseconds since the Unix epoch, to the microsecond or better. */
export function epochMs(at = performance.now()): number {
	return TIME_ORIGIN + at;
}

/**
 * A span whose name and attributes follow from a few fields its caller sets: each of the server's
 * spans (a request's, an event's, a delivery attempt's). It is written from those fields, with no
 * attributes map to build and walk (span-records.ts); OpenTelemetry's SDK span does much more per
 * span (limits, events, links, resource merging), which a server answering thousands of requests
 * a second would pay for on every one.
 * Its context is the parent of the spans started under it. Without a sink (traces not exported,
 * or not sampled by the caller) it is only its ids.
 */
export abstract class FieldSpan implements Span {
	/** Milliseconds since the Unix epoch. */
	readonly startTime: number;
	endTime = 0;
	/** Undefined: a root span's, made when first asked for, or written with no SpanIds made. */
	#ids: SpanIds | undefined;
	#sink: SpanSink | undefined;

	constructor(ids: SpanIds | undefined, sink: SpanSink | undefined, startTime = epochMs()) {
		this.#ids = ids;
		this.#sink = sink;
		this.startTime = startTime;
	}

	spanContext(): SpanIds {
		return (this.#ids ??= SpanIds.root());
	}

	/** Its ids if made: undefined for a root span whose ids nobody has asked for. */
	idsMade(): SpanIds | undefined {
		return this.#ids;
	}

	/** Records it, with its fields as they are now, as ended at `endTime` (now); once. */
	end(endTime = epochMs()): void {
		if (!this.#sink) return;
		this.endTime = endTime;
		this.#sink.ended(this);
		this.#sink = undefined;
	}

	isRecording(): boolean {
		return this.#sink !== undefined;
	}

	// Its attributes and status follow from its fields.
	setAttribute(): this {
		return this;
	}
	setAttributes(): this {
		return this;
	}
	setStatus(): this {
		return this;
	}
	updateName(): this {
		return this;
	}
	addEvent(): this {
		return this;
	}
	addLink(): this {
		return this;
	}
	addLinks(): this {
		return this;
	}
	recordException(): void {}
}

/** The server span of one API request: `METHOD /route/{template}`, with its answer's status. */
export class RequestSpan extends FieldSpan {
	readonly method: string;
	/** The route template, once the router has matched one. */
	route: string | undefined;
	/** The answer's, once it has one. */
	statusCode = 0;

	constructor(
		method: string,
		ids: SpanIds | undefined,
		sink: SpanSink | undefined,
		startTime?: number,
	) {
		super(ids, sink, startTime);
		this.method = method;
	}
}

/**
 * The span of one event's recording, `event <type>`, in the trace of the request that caused it:
 * its ids go with the event (its `traceparent`) to each delivery attempt, whose spans are its
 * children.
 */
export class EventSpan extends FieldSpan {
	readonly eventId: string;
	readonly eventType: string;

	constructor(eventId: string, eventType: string, ids: SpanIds, sink: SpanSink | undefined) {
		super(ids, sink);
		this.eventId = eventId;
		this.eventType = eventType;
	}
}

/** What a delivery attempt's span says of the delivery from its start. */
export interface AttemptOf {
	deliveryId: string;
	webhookId: string;
	eventType: string;
	/** 1 for the first attempt. */
	attempt: number;
	/** The endpoint's host: never its path, query or credentials. */
	host: string;
}

/**
 * The client span of one delivery attempt, `deliver <event type>`: an error when `error` is set
 * (every outcome but `delivered`), `interrupted` when it ended with no outcome (a shutdown).
 */
export class AttemptSpan extends FieldSpan {
	readonly of: AttemptOf;
	outcome = 'interrupted';
	/** The answer's status, null when none came. */
	statusCode: number | null = null;
	error: string | null = null;

	constructor(of: AttemptOf, ids: SpanIds, sink: SpanSink | undefined) {
		super(ids, sink);
		this.of = of;
	}
}
