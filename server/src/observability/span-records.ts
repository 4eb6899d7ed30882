import { SpanKind, SpanStatusCode, type AttributeValue } from '@opentelemetry/api';
import { ANY_VALUE, FIRST, SECOND, SPAN } from './otlp-protobuf.ts';
import { ProtobufBody } from './protobuf-body.ts';
import {
	AttemptSpan,
	EventSpan,
	RequestSpan,
	type FieldSpan,
	type RecordedSpan,
	type SpanSink,
} from './recorded-span.ts';
import {
	EventFields,
	keyField,
	KEY_FIELDS,
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
const TWO_TO_63 = 2 ** 63;
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
	readonly #ended: (RecordedSpan | FieldSpan)[] = [];
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

	span(span: RecordedSpan): void {
		this.#add(span);
	}

	fields(span: FieldSpan): void {
		this.#add(span);
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

	#add(span: RecordedSpan | FieldSpan): void {
		const waiting = this.#ended.push(span);
		if (waiting === WRITE_EVERY) this.flush();
		else if (waiting === 1) this.#timer = setTimeout(() => this.flush(), WRITE_WITHIN_MS).unref();
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

	#write(span: RecordedSpan | FieldSpan): void {
		if (span instanceof RequestSpan) this.#writeRequest(span);
		else if (span instanceof EventSpan) this.#writeEvent(span);
		else if (span instanceof AttemptSpan) this.#writeAttempt(span);
		else this.#writeSpan(span as RecordedSpan);
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

	/** Any other span: its name, kind, attributes and status as they are. */
	#writeSpan(span: RecordedSpan): void {
		const out = this.#out;
		const spanAt = this.#ids(span.spanContext());
		out.string(SPAN.name, span.name);
		writeKind(out, span.kind);
		writeTimes(out, span.startTime, span.endTime!);
		const { attributes } = span;
		for (const key in attributes) {
			const value = attributes[key];
			if (value === undefined || value === null) continue;
			const keyValueAt = out.open(SPAN.attribute, 1);
			const known = KEY_FIELDS.get(key);
			if (known) out.append(known);
			else out.string(FIRST, key);
			const valueAt = out.open(SECOND, 1);
			this.#anyValue(value);
			out.close(valueAt, 1);
			out.close(keyValueAt, 1);
		}
		const { code, message = '' } = span.status;
		if (code || message) writeStatus(out, code, message);
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

	/** An attribute's value as OTLP's `AnyValue`: integers as int64, other numbers as doubles. */
	#anyValue(value: AttributeValue): void {
		const out = this.#out;
		if (typeof value === 'string') out.string(FIRST, value);
		else if (typeof value === 'boolean') {
			out.byte(ANY_VALUE.bool);
			out.byte(value ? 1 : 0);
		} else if (typeof value === 'number') {
			if (Number.isInteger(value) && Math.abs(value) < TWO_TO_63) {
				out.byte(ANY_VALUE.int);
				if (value >= 0 && value <= Number.MAX_SAFE_INTEGER) out.varint(value);
				else out.int64(value);
			} else {
				out.byte(ANY_VALUE.double);
				out.double(value);
			}
		} else {
			const arrayAt = out.open(ANY_VALUE.array, 1);
			for (const item of value as ReadonlyArray<string | number | boolean | null | undefined>) {
				if (item === null || item === undefined) continue;
				const itemAt = out.open(FIRST, 1);
				this.#anyValue(item);
				out.close(itemAt, 1);
			}
			out.close(arrayAt, 1);
		}
	}
}
