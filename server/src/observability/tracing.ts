import {
	ROOT_CONTEXT,
	TraceFlags,
	defaultTextMapGetter,
	isSpanContextValid,
	trace,
	type Context,
	type Span,
} from '@opentelemetry/api';
import { AsyncLocalStorage } from 'node:async_hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
	AttemptSpan,
	EventSpan,
	RequestSpan,
	type AttemptOf,
	type RequestRowSink,
} from './recorded-span.ts';
import type { SpanExports } from './span-export.ts';
import { SpanIds } from './span-ids.ts';
import { SpanRecorder } from './span-records.ts';

export type { Context, Span };

const SHUTDOWN_FLUSH_MS = 2000;

/** The key of a context's span: OpenTelemetry's (`createContextKey`, a `Symbol.for`). */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/**
 * A context that is its parent with one more value: OpenTelemetry's own copies its parent's Map
 * and makes three closures at each `setValue`, which every request paid for its one span.
 */
class ContextEntry implements Context {
	readonly #parent: Context;
	readonly #key: symbol;
	readonly #value: unknown;

	constructor(parent: Context, key: symbol, value: unknown) {
		this.#parent = parent;
		this.#key = key;
		this.#value = value;
	}

	getValue(key: symbol): unknown {
		return key === this.#key ? this.#value : this.#parent.getValue(key);
	}

	setValue(key: symbol, value: unknown): Context {
		return new ContextEntry(this, key, value);
	}

	deleteValue(key: symbol): Context {
		return new ContextEntry(this, key, undefined);
	}
}

/** W3C trace context as it travels: the `traceparent` header and, when there is one, `tracestate`. */
export interface TraceHeaders {
	traceparent?: string;
	tracestate?: string;
}

/**
 * The server's traces, one instance per thread, used through this object only: no global
 * OpenTelemetry state is set, so nothing else loaded in the process (another copy of the API)
 * changes it. Spans always get W3C ids, which deliveries carry in `traceparent`. With `exports`
 * (span-export.ts: to an OTLP endpoint, from this thread or the span export thread) a sampled span
 * is recorded: written, as it ends, into this thread's ring, which the export side reads and sends
 * in batches (an exporter that is down drops spans; it never slows or fails a request). Without
 * it, or unsampled by its caller, a span is only its ids.
 */
export class Tracing {
	readonly #exports: SpanExports | undefined;
	readonly #recorder: SpanRecorder | undefined;
	readonly #contexts = new AsyncLocalStorage<Context>();
	readonly #propagator = new W3CTraceContextPropagator();

	constructor(options: { exports?: SpanExports } = {}) {
		this.#exports = options.exports;
		this.#recorder = options.exports && new SpanRecorder(options.exports.ring);
	}

	/** The context of the code running now (the request's, inside its handler). */
	active(): Context {
		return this.#contexts.getStore() ?? ROOT_CONTEXT;
	}

	/** Runs `work` with `context` as the active one, through its awaits. */
	run<T>(context: Context, work: () => T): T {
		return this.#contexts.run(context, work);
	}

	/**
	 * The server span of a request (`method`), child of `parent` (what its W3C headers carry), which
	 * started at `startTime` (ms since the Unix epoch): set its `route` and `statusCode`, then end it.
	 * A root span's ids are made when something asks for them (`withSpan`), or drawn as it is
	 * written. A read under no caller's trace needs no span at all (`requestRows`).
	 */
	startRequestSpan(method: string, parent: Context, startTime: number): RequestSpan {
		if (!this.inTrace(parent)) return new RequestSpan(method, undefined, this.#recorder, startTime);
		const { ids, recorder } = this.#idsUnder(parent);
		return new RequestSpan(method, ids, recorder, startTime);
	}

	/** Whether `context` (what a request's W3C headers carry) holds a caller's span. */
	inTrace(context: Context): boolean {
		return trace.getSpanContext(context) !== undefined;
	}

	/**
	 * Where a request that `startRequestSpan` is not asked for records its server span as it ends:
	 * a read under no caller's trace, whose root span's ids nobody asks for (request-rows.ts).
	 * Undefined when spans are not recorded.
	 */
	get requestRows(): RequestRowSink | undefined {
		return this.#recorder;
	}

	/**
	 * The span of an event's recording, child of the active context's (the request's): end it once
	 * the event is stored.
	 */
	startEventSpan(eventId: string, eventType: string): EventSpan {
		const { ids, recorder } = this.#idsUnder(this.active());
		return new EventSpan(eventId, eventType, ids, recorder);
	}

	/**
	 * The client span of a delivery attempt, child of `parent` (its event's trace): set its
	 * `outcome`, `statusCode` and `error` once answered, then end it.
	 */
	startAttemptSpan(of: AttemptOf, parent: Context): AttemptSpan {
		const { ids, recorder } = this.#idsUnder(parent);
		return new AttemptSpan(of, ids, recorder);
	}

	/** A new span's ids, in `parent`'s trace and sampled as it is, or the root of a new sampled trace. */
	#idsUnder(parent: Context) {
		const parentIds = trace.getSpanContext(parent);
		// The server's own ids are valid: checking them would turn them into hex.
		const inTrace =
			parentIds instanceof SpanIds || (parentIds !== undefined && isSpanContextValid(parentIds));
		const ids = inTrace ? SpanIds.childOf(parentIds!) : SpanIds.root();
		const sampled = (ids.traceFlags & TraceFlags.SAMPLED) !== 0;
		return { ids, recorder: sampled ? this.#recorder : undefined };
	}

	/**
	 * `parent` with `span` as its current span. Its ids are made now if they were not: the spans
	 * started under it are children of the ids it is written with.
	 */
	withSpan(parent: Context, span: Span): Context {
		span.spanContext();
		return new ContextEntry(parent, SPAN_KEY, span);
	}

	/** The context that incoming W3C headers carry (the root context when they carry none, or a malformed one). */
	extract(headers: TraceHeaders | Record<string, string | string[] | undefined>): Context {
		return this.#propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
	}

	/**
	 * The W3C headers that continue `span`'s trace with `span` as the parent, as OpenTelemetry's
	 * propagator writes them (the server's spans always have valid ids).
	 */
	headersOf(span: Span): TraceHeaders {
		const { traceId, spanId, traceFlags, traceState } = span.spanContext();
		const headers: TraceHeaders = {
			traceparent: `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`,
		};
		const state = traceState?.serialize();
		if (state) headers.tracestate = state;
		return headers;
	}

	/** Sends what is still buffered, for at most 2 s (a collector that hangs does not hold up a shutdown). */
	async shutdown(): Promise<void> {
		this.#contexts.disable();
		this.#recorder?.flush();
		let timer: NodeJS.Timeout | undefined;
		await Promise.race([
			this.#exports?.close(),
			new Promise((resolve) => (timer = setTimeout(resolve, SHUTDOWN_FLUSH_MS))),
		]);
		clearTimeout(timer);
	}
}
