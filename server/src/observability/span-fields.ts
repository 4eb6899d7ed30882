import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { ANY_VALUE, FIRST, SECOND, SPAN, STATUS_CODE } from './otlp-protobuf.ts';
import { ProtobufBody } from './protobuf-body.ts';

// Fields of OTLP's protobuf `Span` that the server's spans share, written by hand (span-records.ts).

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
 * The fields of a request span that follow from its method, route and status — `METHOD /route`,
 * SPAN_KIND_SERVER, the three attributes, an error status from 500 on — written once for each
 * combination and copied from there: written for every span, they took the request thread about
 * 3,700 instructions a `GET /me`, copied about 1,100 (callgrind, docs/performance.md).
 */
export class RequestFields {
	/** method → route (undefined: none matched) → status → the fields. */
	readonly #written = new Map<string, Map<string | undefined, Map<number, Buffer>>>();
	#count = 0;

	of(method: string, route: string | undefined, statusCode: number): Buffer {
		let ofMethod = this.#written.get(method);
		if (!ofMethod) this.#written.set(method, (ofMethod = new Map()));
		let ofRoute = ofMethod.get(route);
		if (!ofRoute) ofMethod.set(route, (ofRoute = new Map()));
		let fields = ofRoute.get(statusCode);
		if (!fields) {
			fields = writeRequestFields(method, route, statusCode);
			if (this.#count < MAX_REQUEST_FIELDS) {
				ofRoute.set(statusCode, fields);
				this.#count++;
			}
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
