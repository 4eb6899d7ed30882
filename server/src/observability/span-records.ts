import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { FIRST, SECOND, SPAN } from './otlp-protobuf.ts';
import { ProtobufBody } from './protobuf-body.ts';
import {
	AttemptSpan,
	EventSpan,
	RequestSpan,
	type FieldSpan,
	type SpanSink,
} from './recorded-span.ts';
import {
	EventFields,
	keyField,
	RequestFields,
	STATUS,
	writeIntAttribute,
	writeKind,
	writeStatus,
	writeStringAttribute,
	writeTimes,
} from './span-fields.ts';
import { SpanIds } from './span-ids.ts';
import { RingWriter } from './span-ring.ts';

const ATTEMPT = {
	deliveryId: keyField('traininglab.delivery.id'),
	webhookId: keyField('traininglab.webhook.id'),
	eventType: keyField('traininglab.event.type'),
	attempt: keyField('traininglab.attempt'),
	host: keyField('server.address'),
	outcome: keyField('traininglab.outcome'),
};
const EVENT_ID = keyField('traininglab.event.id');
const DELIVER = Buffer.from('deliver ', 'ascii');
/** Bytes kept for a span's length: 16 KiB, more than any request's or attempt's span takes. */
const SPAN_LENGTH_BYTES = 2;

/**
 * Ended spans are written this many at a time, in one loop: written one by one as each request
 * ends, between two requests' work, the writing code and its data are out of the CPU's caches
 * each time, and a span costs the server several times as much.
 */
const WRITE_EVERY = 64;
/** Fewer are written within this long of the first one's end. */
const WRITE_WITHIN_MS = 100;
/** Room for the spans written at once; a larger span gets room of its own, let go once written. */
const WRITE_BYTES = 256 * 1024;

/**
 * The writing side (a thread's spans): each ended span is written in OTLP's protobuf, as the field
 * of `ScopeSpans` that holds it, and the spans into the thread's ring, in one pass with nothing
 * allocated. The export side only puts them together, in batches (otlp-exporter.ts): encoding
 * there took a thread that wakes once a second, with cold caches, two or three times as long.
 */
export class SpanRecorder implements SpanSink {
	readonly #ring: RingWriter;
	/** Spans ended and not yet written: fewer than WRITE_EVERY. */
	readonly #ended: FieldSpan[] = [];
	/** Where each span written into `#out` ends. */
	readonly #ends: number[] = [];
	#timer: NodeJS.Timeout | undefined;
	#out = new ProtobufBody(WRITE_BYTES);
	readonly #requestFields = new RequestFields();
	readonly #eventFields = new EventFields();

	constructor(ring: SharedArrayBuffer) {
		this.#ring = new RingWriter(ring);
	}

	/** Spans dropped because the export side had fallen behind by a whole ring. */
	get dropped(): number {
		return this.#ring.dropped;
	}

	ended(span: FieldSpan): void {
		const waiting = this.#ended.push(span);
		if (waiting === WRITE_EVERY) this.flush();
		else if (waiting === 1) this.#timer = setTimeout(() => this.flush(), WRITE_WITHIN_MS).unref();
	}

	/** Writes the spans ended so far into the ring. */
	flush(): void {
		clearTimeout(this.#timer);
		this.#timer = undefined;
		const ended = this.#ended;
		for (let index = 0; index < ended.length; index++) {
			const span = ended[index];
			const from = this.#out.at;
			this.#write(span);
			if (this.#out.fits()) this.#ends.push(this.#out.at);
			else {
				// No room left: what is written goes first, then the span alone, in room enough for it.
				const needed = this.#out.at - from;
				this.#out.at = from;
				this.#toRing();
				if (needed > this.#out.body.length) this.#out = new ProtobufBody(needed);
				this.#write(span);
				this.#ends.push(this.#out.at);
			}
		}
		ended.length = 0;
		this.#toRing();
	}

	/** The spans written so far into the ring: all at once, or those that fit one by one. */
	#toRing(): void {
		const out = this.#out;
		const ends = this.#ends;
		if (out.at <= this.#ring.free()) this.#ring.write(out.body, 0, out.at, ends.length);
		else {
			let from = 0;
			for (const end of ends) {
				this.#ring.write(out.body, from, end - from, 1);
				from = end;
			}
		}
		ends.length = 0;
		out.at = 0;
		if (out.body.length > WRITE_BYTES) this.#out = new ProtobufBody(WRITE_BYTES);
	}

	#write(span: FieldSpan): void {
		if (span instanceof RequestSpan) this.#writeRequest(span);
		else if (span instanceof EventSpan) this.#writeEvent(span);
		else this.#writeAttempt(span as AttemptSpan);
	}

	/**
	 * A request span: its ids and times, then what follows from its method, route and status (its
	 * name, kind, attributes and status), written once for each of them and copied from there.
	 */
	#writeRequest(span: RequestSpan): void {
		const out = this.#out;
		const spanAt = this.#ids(span.idsMade());
		writeTimes(out, span.startTime, span.endTime);
		out.append(this.#requestFields.of(span.method, span.route, span.statusCode));
		out.close(spanAt, SPAN_LENGTH_BYTES);
	}

	/** An event's span: its ids, times and id, then what follows from its type, written once a type. */
	#writeEvent(span: EventSpan): void {
		const out = this.#out;
		const spanAt = this.#ids(span.spanContext());
		writeTimes(out, span.startTime, span.endTime);
		writeStringAttribute(out, EVENT_ID, span.eventId);
		out.append(this.#eventFields.of(span.eventType));
		out.close(spanAt, SPAN_LENGTH_BYTES);
	}

	/** A delivery attempt's span: `deliver <event type>`, an error with its message unless delivered. */
	#writeAttempt(span: AttemptSpan): void {
		const out = this.#out;
		const spanAt = this.#ids(span.spanContext());
		const { of } = span;
		const nameAt = out.open(SPAN.name, 1);
		out.append(DELIVER);
		out.utf8(of.eventType);
		out.close(nameAt, 1);
		writeKind(out, SpanKind.CLIENT);
		writeTimes(out, span.startTime, span.endTime);
		writeStringAttribute(out, ATTEMPT.deliveryId, of.deliveryId);
		writeStringAttribute(out, ATTEMPT.webhookId, of.webhookId);
		writeStringAttribute(out, ATTEMPT.eventType, of.eventType);
		writeIntAttribute(out, ATTEMPT.attempt, of.attempt);
		writeStringAttribute(out, ATTEMPT.host, of.host);
		writeStringAttribute(out, ATTEMPT.outcome, span.outcome);
		if (span.statusCode) writeIntAttribute(out, STATUS, span.statusCode);
		if (span.error !== null) writeStatus(out, SpanStatusCode.ERROR, span.error);
		out.close(spanAt, SPAN_LENGTH_BYTES);
	}

	/**
	 * Opens the span's field, and writes its ids (`undefined`: a new root span's, drawn now) and
	 * `tracestate`; returns where its length goes.
	 */
	#ids(ids: SpanIds | undefined): number {
		const out = this.#out;
		const spanAt = out.open(SECOND, SPAN_LENGTH_BYTES);
		out.byte(FIRST);
		out.byte(16);
		const traceIdAt = out.at;
		out.at += 16;
		out.byte(SECOND);
		out.byte(8);
		const spanIdAt = out.at;
		out.at += 8;
		if (!ids) {
			// Past the body's end nothing is written: the span is written again in room of its own.
			if (out.fits()) SpanIds.writeRoot(out.view, traceIdAt, spanIdAt);
			return spanAt;
		}
		ids.copyTraceId(out.body, traceIdAt);
		ids.copySpanId(out.body, spanIdAt);
		const traceState = ids.traceState?.serialize();
		if (traceState) out.string(SPAN.traceState, traceState);
		if (ids.hasParent) {
			out.byte(SPAN.parentSpanId);
			out.byte(8);
			ids.copyParentSpanId(out.body, out.at);
			out.at += 8;
		}
		return spanAt;
	}
}
