import {
	SpanStatusCode,
	type Attributes,
	type AttributeValue,
	type Span,
	type SpanContext,
	type SpanKind,
	type SpanStatus,
} from '@opentelemetry/api';

/** Where a recorded span goes once it ends (the exporter's batch). */
export interface SpanSink {
	add(span: RecordedSpan): void;
}

const TIME_ORIGIN = performance.timeOrigin;

/** Now, in milliseconds since the Unix epoch, to the microsecond or better. */
function nowMs(): number {
	return TIME_ORIGIN + performance.now();
}

/**
 * A span that records what an OTLP export needs — name, kind, ids, parent, times, attributes,
 * status — and nothing else, and hands itself to `sink` when it ends. OpenTelemetry's SDK span
 * does much more per span (limits, events, links, resource merging), which a server answering
 * thousands of requests a second pays for on every one.
 */
export class RecordedSpan implements Span {
	readonly kind: SpanKind;
	readonly parentSpanId: string | undefined;
	/** Milliseconds since the Unix epoch, to the microsecond or better. */
	readonly startTime = nowMs();
	readonly attributes: Attributes;
	name: string;
	status: SpanStatus = { code: SpanStatusCode.UNSET };
	endTime: number | undefined;
	readonly #context: SpanContext;
	readonly #sink: SpanSink;

	constructor(
		name: string,
		kind: SpanKind,
		context: SpanContext,
		parentSpanId: string | undefined,
		attributes: Attributes | undefined,
		sink: SpanSink,
	) {
		this.name = name;
		this.kind = kind;
		this.#context = context;
		this.parentSpanId = parentSpanId;
		// Its own: each caller passes an object made for the span.
		this.attributes = attributes ?? {};
		this.#sink = sink;
	}

	spanContext(): SpanContext {
		return this.#context;
	}

	setAttribute(key: string, value: AttributeValue): this {
		if (this.endTime === undefined) this.attributes[key] = value;
		return this;
	}

	setAttributes(attributes: Attributes): this {
		if (this.endTime === undefined) Object.assign(this.attributes, attributes);
		return this;
	}

	setStatus(status: SpanStatus): this {
		if (this.endTime === undefined) this.status = status;
		return this;
	}

	updateName(name: string): this {
		if (this.endTime === undefined) this.name = name;
		return this;
	}

	end(): void {
		if (this.endTime !== undefined) return;
		this.endTime = nowMs();
		this.#sink.add(this);
	}

	isRecording(): boolean {
		return this.endTime === undefined;
	}

	// Events, links and exceptions: the server records none.
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
