import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { SPAN } from './otlp-protobuf.ts';
import { ProtobufBody } from './protobuf-body.ts';
import { RequestRows } from './request-rows.ts';
import {
	AttemptSpan,
	EventSpan,
	RequestSpan,
	type FieldSpan,
	type RequestRowSink,
	type SpanSink,
} from './recorded-span.ts';
import {
	closeSpan,
	EventFields,
	keyField,
	openSpan,
	RequestFields,
	STATUS,
	writeIntAttribute,
	writeKind,
	writeStatus,
	writeStringAttribute,
	writeTimes,
} from './span-fields.ts';
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
 * allocated; the export side puts them together in batches (otlp-exporter.ts). A request whose
 * span nobody asked for leaves only a row, which the export side writes its span from
 * (request-rows.ts).
 */
export class SpanRecorder implements SpanSink, RequestRowSink {
	readonly #ring: RingWriter;
	/** Spans ended and not yet written: with the rows, fewer than WRITE_EVERY. */
	readonly #ended: FieldSpan[] = [];
	readonly #rows = new RequestRows(WRITE_EVERY);
	/** Where each record (a span, or a record of rows) written into `#out` ends, and its spans. */
	readonly #ends: number[] = [];
	readonly #spans: number[] = [];
	#timer: NodeJS.Timeout | undefined;
	#out = new ProtobufBody(WRITE_BYTES);
	readonly #requestFields: RequestFields;
	readonly #eventFields = new EventFields();

	constructor(ring: SharedArrayBuffer) {
		const writer = new RingWriter(ring);
		this.#ring = writer;
		this.#requestFields = new RequestFields((bytes) => writer.define(bytes));
	}

	/** Spans dropped because the export side had fallen behind by a whole ring. */
	get dropped(): number {
		return this.#ring.dropped;
	}

	ended(span: FieldSpan): void {
		this.#ended.push(span);
		this.#waiting();
	}

	/** Recorded as a row, with no span made. */
	requestEnded(
		method: string,
		route: string | undefined,
		statusCode: number,
		start: number,
		end: number,
	): void {
		this.#rows.add(method, route, statusCode, start, end);
		this.#waiting();
	}

	/**
	 * A timer, once set, is left to run out rather than cleared by each write of 64 and set again
	 * for the next: at thousands of requests a second that was a timer made and dropped every few
	 * milliseconds. When it runs out it writes what waits, at most WRITE_WITHIN_MS old.
	 */
	#waiting(): void {
		if (this.#ended.length + this.#rows.count === WRITE_EVERY) this.flush();
		else if (this.#timer === undefined)
			this.#timer = setTimeout(() => {
				this.#timer = undefined;
				this.flush();
			}, WRITE_WITHIN_MS).unref();
	}

	/** Writes the spans and rows ended so far into the ring. */
	flush(): void {
		const ended = this.#ended;
		// First, into the empty body: a record of 64 rows takes 1,283 bytes.
		const rows = this.#rows.write(this.#out, this.#requestFields, ended);
		if (rows > 0) this.#wrote(rows);
		for (let index = 0; index < ended.length; index++) {
			const span = ended[index];
			const from = this.#out.at;
			this.#write(span);
			if (this.#out.fits()) this.#wrote(1);
			else {
				// No room left: what is written goes first, then the span alone, in room enough for it.
				const needed = this.#out.at - from;
				this.#out.at = from;
				this.#toRing();
				if (needed > this.#out.body.length) this.#out = new ProtobufBody(needed);
				this.#write(span);
				this.#wrote(1);
			}
		}
		ended.length = 0;
		this.#toRing();
	}

	/** A record of `spans` spans is written into `#out`, up to where it is now. */
	#wrote(spans: number): void {
		this.#ends.push(this.#out.at);
		this.#spans.push(spans);
	}

	/** The records written so far into the ring: all at once, or those that fit one by one. */
	#toRing(): void {
		const out = this.#out;
		const ends = this.#ends;
		const spans = this.#spans;
		if (out.at <= this.#ring.free()) {
			let all = 0;
			for (const count of spans) all += count;
			this.#ring.write(out.body, 0, out.at, all);
		} else {
			let from = 0;
			for (let index = 0; index < ends.length; index++) {
				this.#ring.write(out.body, from, ends[index] - from, spans[index]);
				from = ends[index];
			}
		}
		ends.length = 0;
		spans.length = 0;
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
		const spanAt = openSpan(out, span.idsMade());
		writeTimes(out, span.startTime, span.endTime);
		out.append(this.#requestFields.of(span.method, span.route, span.statusCode).bytes);
		closeSpan(out, spanAt);
	}

	/** An event's span: its ids, times and id, then what follows from its type, written once a type. */
	#writeEvent(span: EventSpan): void {
		const out = this.#out;
		const spanAt = openSpan(out, span.spanContext());
		writeTimes(out, span.startTime, span.endTime);
		writeStringAttribute(out, EVENT_ID, span.eventId);
		out.append(this.#eventFields.of(span.eventType));
		closeSpan(out, spanAt);
	}

	/** A delivery attempt's span: `deliver <event type>`, an error with its message unless delivered. */
	#writeAttempt(span: AttemptSpan): void {
		const out = this.#out;
		const spanAt = openSpan(out, span.spanContext());
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
		closeSpan(out, spanAt);
	}
}
