import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { ANY_VALUE, FIRST, SECOND, SPAN, STATUS_CODE } from './otlp-protobuf.ts';
import { ProtobufBody } from './protobuf-body.ts';
import { SpanIds } from './span-ids.ts';

// Fields of OTLP's protobuf `Span` that the server's spans share, written by hand (span-records.ts).

/** Bytes kept for a span's length: 16 KiB, more than any request's or attempt's span takes. */
const SPAN_LENGTH_BYTES = 2;
/** Bytes a span's field takes besides its times and what follows them: its tag, length and ids. */
export const SPAN_HEAD_BYTES = 1 + SPAN_LENGTH_BYTES + 2 + 16 + 2 + 8;
/** Bytes of a span's start and end. */
export const TIMES_BYTES = 2 * 9;

/**
 * Opens a span, as the field of `ScopeSpans` that holds it, and writes its ids (`undefined`: a new
 * root span's, drawn now) and `tracestate`; `closeSpan` it once the rest is written.
 */
export function openSpan(out: ProtobufBody, ids: SpanIds | undefined): number {
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

/** Closes the span opened at `spanAt` (`openSpan`). */
export function closeSpan(out: ProtobufBody, spanAt: number): void {
	out.close(spanAt, SPAN_LENGTH_BYTES);
}

/**
 * The key of an attribute (ASCII, under 128 characters), written once as its field of a
 * `KeyValue` and copied from there.
 */
export const keyField = (key: string): Buffer =>
	Buffer.from([FIRST, key.length, ...Buffer.from(key, 'ascii')]);
const METHOD = keyField('http.request.method');
const EVENT_TYPE = keyField('traininglab.event.type');
const ROUTE = keyField('http.route');
export const STATUS = keyField('http.response.status_code');

/** OTLP's first span kind, SPAN_KIND_INTERNAL, is 1 where OpenTelemetry's API counts from 0. */
const KIND_OFFSET = 1;

export function writeKind(out: ProtobufBody, kind: SpanKind): void {
	out.byte(SPAN.kind);
	out.byte(kind + KIND_OFFSET);
}

/** A span's start and end, in milliseconds since the Unix epoch. */
export function writeTimes(out: ProtobufBody, start: number, end: number): void {
	out.time(SPAN.startTime, start);
	out.time(SPAN.endTime, end);
}

/** An attribute whose key field is `key` and whose value is a string. */
export function writeStringAttribute(out: ProtobufBody, key: Buffer, value: string): void {
	const keyValueAt = out.open(SPAN.attribute, 1);
	out.append(key);
	const valueAt = out.open(SECOND, 1);
	out.string(FIRST, value);
	out.close(valueAt, 1);
	out.close(keyValueAt, 1);
}

/** An attribute whose key field is `key` and whose value is a non-negative integer. */
export function writeIntAttribute(out: ProtobufBody, key: Buffer, value: number): void {
	const keyValueAt = out.open(SPAN.attribute, 1);
	out.append(key);
	const valueAt = out.open(SECOND, 1);
	out.byte(ANY_VALUE.int);
	out.varint(value);
	out.close(valueAt, 1);
	out.close(keyValueAt, 1);
}

export function writeStatus(out: ProtobufBody, code: SpanStatusCode, message: string): void {
	const statusAt = out.open(SPAN.status, 1);
	if (message) out.string(SECOND, message);
	out.byte(STATUS_CODE);
	out.byte(code);
	out.close(statusAt, 1);
}

/**
 * Combinations of method, route and status kept written: more than the methods Node's parser
 * accepts, the route templates and the statuses the server sends make together. Past it, the
 * fields are written for each span.
 */
const MAX_REQUEST_FIELDS = 4096;

/**
 * A request span's fields, written: their bytes, and the number they are defined by in the
 * thread's ring (-1: not defined there).
 */
export interface WrittenFields {
	bytes: Buffer;
	id: number;
}

/**
 * The fields of a request span that follow from its method, route and status — `METHOD /route`,
 * SPAN_KIND_SERVER, the three attributes, an error status from 500 on — written once for each
 * combination, and defined in the thread's ring through `define` (RingWriter.define), for rows to
 * name (request-rows.ts) and the export side to copy: written for every span, they took the
 * request thread about 3,700 instructions a `GET /me`, copied about 1,100 (callgrind,
 * docs/performance.md).
 */
export class RequestFields {
	/** method → route (undefined: none matched) → status → the fields. */
	readonly #written = new Map<string, Map<string | undefined, Map<number, WrittenFields>>>();
	readonly #define: (bytes: Buffer) => number;
	#count = 0;

	constructor(define: (bytes: Buffer) => number) {
		this.#define = define;
	}

	of(method: string, route: string | undefined, statusCode: number): WrittenFields {
		let ofMethod = this.#written.get(method);
		if (!ofMethod) this.#written.set(method, (ofMethod = new Map()));
		let ofRoute = ofMethod.get(route);
		if (!ofRoute) ofMethod.set(route, (ofRoute = new Map()));
		let fields = ofRoute.get(statusCode);
		if (!fields) {
			const bytes = writeRequestFields(method, route, statusCode);
			if (this.#count === MAX_REQUEST_FIELDS) return { bytes, id: -1 };
			fields = { bytes, id: this.#define(bytes) };
			ofRoute.set(statusCode, fields);
			this.#count++;
		}
		return fields;
	}
}

function writeRequestFields(method: string, route: string | undefined, statusCode: number): Buffer {
	// Room for the key fields, tags and lengths, and both strings twice, in UTF-8.
	const out = new ProtobufBody(256 + 6 * (method.length + (route?.length ?? 0)));
	const nameAt = out.open(SPAN.name, 1);
	out.utf8(method);
	if (route) {
		out.byte(0x20); // a space
		out.utf8(route);
	}
	out.close(nameAt, 1);
	writeKind(out, SpanKind.SERVER);
	writeStringAttribute(out, METHOD, method);
	if (route) writeStringAttribute(out, ROUTE, route);
	writeIntAttribute(out, STATUS, statusCode);
	if (statusCode >= 500) writeStatus(out, SpanStatusCode.ERROR, '');
	return Buffer.from(out.body.subarray(0, out.at));
}

/**
 * The fields of an event's span that follow from its type — `event <type>`, SPAN_KIND_INTERNAL and
 * the type attribute — written once for each type (the catalogue's, a few dozen) and copied from
 * there, as request spans' are.
 */
export class EventFields {
	readonly #written = new Map<string, Buffer>();

	of(eventType: string): Buffer {
		let fields = this.#written.get(eventType);
		if (!fields) {
			const out = new ProtobufBody(64 + 6 * eventType.length);
			const nameAt = out.open(SPAN.name, 1);
			out.utf8('event ');
			out.utf8(eventType);
			out.close(nameAt, 1);
			writeKind(out, SpanKind.INTERNAL);
			writeStringAttribute(out, EVENT_TYPE, eventType);
			fields = Buffer.from(out.body.subarray(0, out.at));
			this.#written.set(eventType, fields);
		}
		return fields;
	}
}
