import {
	ROOT_CONTEXT,
	SpanKind,
	SpanStatusCode,
	TraceFlags,
	defaultTextMapGetter,
	defaultTextMapSetter,
	isSpanContextValid,
	trace,
	type Attributes,
	type Context,
	type Span,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, RandomIdGenerator, TracerProvider } from '@opentelemetry/sdk-trace';
import { OtlpJsonExporter } from './otlp-exporter.ts';

export { SpanKind, SpanStatusCode, type Context, type Span };

const SHUTDOWN_FLUSH_MS = 2000;

/** W3C trace context as it travels: the `traceparent` header and, when there is one, `tracestate`. */
export interface TraceHeaders {
	traceparent?: string;
	tracestate?: string;
}

/**
 * The server's traces, one instance per thread, used through this object only: no global
 * OpenTelemetry state is set, so nothing else loaded in the process (another copy of the API)
 * changes it. Spans always get W3C ids, which deliveries carry in `traceparent`; they are exported
 * over OTLP/HTTP when `otlpEndpoint` is set, in batches off the request path (an exporter that is
 * down drops spans; it never slows or fails a request). Without it a span is only its ids: nothing
 * is recorded that would go nowhere.
 */
export class Tracing {
	readonly #exporting: boolean;
	readonly #provider: TracerProvider;
	readonly #tracer;
	readonly #contexts = new AsyncLocalStorageContextManager();
	readonly #propagator = new W3CTraceContextPropagator();

	constructor(options: { otlpEndpoint?: string; serviceName?: string } = {}) {
		this.#exporting = options.otlpEndpoint !== undefined;
		const spanProcessors = options.otlpEndpoint
			? [
					new BatchSpanProcessor({
						exporter: new OtlpJsonExporter(options.otlpEndpoint),
						// A trace is in the collector within about a second; a collector that is away costs
						// at most this many spans kept in memory, then drops them.
						scheduledDelayMillis: 1000,
						maxQueueSize: 4096,
					}),
				]
			: [];
		this.#provider = new TracerProvider({
			resource: resourceFromAttributes({
				'service.name': options.serviceName ?? 'traininglab-api',
			}),
			spanProcessors,
		});
		this.#tracer = this.#provider.getTracer('traininglab-api');
		this.#contexts.enable();
	}

	/** The context of the code running now (the request's, inside its handler). */
	active(): Context {
		return this.#contexts.active();
	}

	/** Runs `work` with `context` as the active one, through its awaits. */
	run<T>(context: Context, work: () => T): T {
		return this.#contexts.with(context, work);
	}

	/** A span, child of `parent` (by default the active context's span). */
	startSpan(
		name: string,
		options: { kind?: SpanKind; attributes?: Attributes } = {},
		parent: Context = this.active(),
	): Span {
		if (!this.#exporting) return idsOnlySpan(parent);
		return this.#tracer.startSpan(name, options, parent);
	}

	/** `parent` with `span` as its current span. */
	withSpan(parent: Context, span: Span): Context {
		return trace.setSpan(parent, span);
	}

	/** The context that incoming W3C headers carry (the root context when they carry none, or a malformed one). */
	extract(headers: TraceHeaders | Record<string, string | string[] | undefined>): Context {
		return this.#propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
	}

	/** The W3C headers that continue `span`'s trace. */
	headersOf(context: Context): TraceHeaders {
		const headers: TraceHeaders = {};
		this.#propagator.inject(context, headers, defaultTextMapSetter);
		return headers;
	}

	/** Sends what is still buffered, for at most 2 s (a collector that hangs does not hold up a shutdown). */
	async shutdown(): Promise<void> {
		this.#contexts.disable();
		let timer: NodeJS.Timeout | undefined;
		await Promise.race([
			this.#provider.shutdown().catch(() => {}),
			new Promise((resolve) => (timer = setTimeout(resolve, SHUTDOWN_FLUSH_MS))),
		]);
		clearTimeout(timer);
	}
}

/** The SDK's ids, from `Math.random`: a span's ids need to be unique, not secret (crypto's are 3 times slower). */
const ids = new RandomIdGenerator();

/** A span that is only its W3C ids: in the trace of `parent`'s span (a new trace without one), sampled as it is. */
function idsOnlySpan(parent: Context): Span {
	const parentIds = trace.getSpanContext(parent);
	const inTrace = parentIds !== undefined && isSpanContextValid(parentIds);
	return trace.wrapSpanContext({
		traceId: inTrace ? parentIds.traceId : ids.generateTraceId(),
		spanId: ids.generateSpanId(),
		traceFlags: inTrace ? parentIds.traceFlags : TraceFlags.SAMPLED,
		traceState: inTrace ? parentIds.traceState : undefined,
	});
}
