import type { ProtobufBody } from './protobuf-body.ts';
import { RequestSpan, type FieldSpan } from './recorded-span.ts';
import {
	closeSpan,
	openSpan,
	SPAN_HEAD_BYTES,
	TIMES_BYTES,
	writeTimes,
	type RequestFields,
} from './span-fields.ts';
import type { RingReader } from './span-ring.ts';

/**
 * The tag of a record of request rows in a span ring: never a field of `ScopeSpans` (whose spans
 * are its second field), it is read by the export side and turned into spans there, never sent.
 */
export const ROWS = 0x7a;
/** A row: its start and end (ms since the Unix epoch, 8 bytes each) and its fields' number (4). */
const ROW_BYTES = 20;
const END = 8;
const FIELDS = 16;

/**
 * The requests a thread answered with a root span whose ids nobody asked for (a read under no
 * caller's trace: most requests): each one a row of what its span is written from, with no span
 * made for it. Its thread writes them into its ring as one record (`write`), in which each names
 * its fields by the number they are defined by there (RequestFields); the export side writes their
 * spans from the record (`writeRowSpans`), ids drawn as it does. A request span made and written
 * on the request thread cost it 1–1.8 µs of a `GET /sessions/{id}` in a running server, about five
 * times its cost in a hot loop (docs/performance.md).
 */
export class RequestRows {
	/** Method and route, by turns. */
	readonly #names: (string | undefined)[];
	/** Start, end and status, by turns: what a row adds goes into two arrays, not five. */
	readonly #numbers: Float64Array;
	/** Each row's fields' number, as it is written. */
	readonly #ids: Int32Array;
	/** Rows held, at most its capacity: its owner writes them out (`write`) by then. */
	count = 0;

	constructor(capacity: number) {
		this.#names = new Array<string | undefined>(2 * capacity).fill(undefined);
		this.#numbers = new Float64Array(3 * capacity);
		this.#ids = new Int32Array(capacity);
	}

	add(
		method: string,
		route: string | undefined,
		statusCode: number,
		start: number,
		end: number,
	): void {
		const row = this.count++;
		this.#names[2 * row] = method;
		this.#names[2 * row + 1] = route;
		this.#numbers[3 * row] = start;
		this.#numbers[3 * row + 1] = end;
		this.#numbers[3 * row + 2] = statusCode;
	}

	/**
	 * Writes its rows into `out` as one record (with room for it: 3 bytes and ROW_BYTES a row), and
	 * empties it; the span of a row whose fields are not defined in the ring is pushed on `spans`
	 * instead, to be written whole. Returns the rows the record holds (none: no record written).
	 */
	write(out: ProtobufBody, fields: RequestFields, spans: FieldSpan[]): number {
		const names = this.#names;
		const numbers = this.#numbers;
		const ids = this.#ids;
		let defined = 0;
		for (let row = 0; row < this.count; row++) {
			const method = names[2 * row]!;
			const route = names[2 * row + 1];
			const statusCode = numbers[3 * row + 2];
			const { id } = fields.of(method, route, statusCode);
			ids[row] = id;
			if (id >= 0) defined++;
			else {
				const span = new RequestSpan(method, undefined, undefined, numbers[3 * row]);
				span.route = route;
				span.statusCode = statusCode;
				span.endTime = numbers[3 * row + 1];
				spans.push(span);
			}
		}
		if (defined > 0) {
			const recordAt = out.open(ROWS, 2);
			for (let row = 0; row < this.count; row++) {
				if (ids[row] < 0) continue;
				const at = out.at;
				out.view.setFloat64(at, numbers[3 * row], true);
				out.view.setFloat64(at + END, numbers[3 * row + 1], true);
				out.view.setUint32(at + FIELDS, ids[row], true);
				out.at = at + ROW_BYTES;
			}
			out.close(recordAt, 2);
		}
		this.count = 0;
		return defined;
	}
}

/** The rows a record holds: `record` the record's content (past its tag and length). */
export function rowsIn(record: Buffer): number {
	return record.length / ROW_BYTES;
}

/** At most the bytes the spans of a record's rows take. */
export function rowSpansBytes(record: Buffer, ring: RingReader): number {
	let bytes = 0;
	for (let at = 0; at < record.length; at += ROW_BYTES)
		bytes +=
			SPAN_HEAD_BYTES +
			TIMES_BYTES +
			(ring.definition(record.readUInt32LE(at + FIELDS))?.length ?? 0);
	return bytes;
}

/**
 * Writes the span of each row of a record (its content: `record`) into `out`, its fields as the
 * ring defines them; returns how many it wrote (a row naming fields the ring does not define has
 * none).
 */
export function writeRowSpans(out: ProtobufBody, record: Buffer, ring: RingReader): number {
	let spans = 0;
	for (let at = 0; at < record.length; at += ROW_BYTES) {
		const fields = ring.definition(record.readUInt32LE(at + FIELDS));
		if (!fields) continue;
		const spanAt = openSpan(out, undefined);
		writeTimes(out, record.readDoubleLE(at), record.readDoubleLE(at + END));
		out.append(fields);
		closeSpan(out, spanAt);
		spans++;
	}
	return spans;
}
