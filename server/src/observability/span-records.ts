import { SpanKind, SpanStatusCode, type AttributeValue } from '@opentelemetry/api';
import {
	AttemptSpan,
	RequestSpan,
	type FieldSpan,
	type RecordedSpan,
	type SpanSink,
} from './recorded-span.ts';
import type { SpanIds } from './span-ids.ts';
import { RingWriter } from './span-ring.ts';

/**
 * A record: its type, the span's kind, flags, status code, ids (bytes), times (float64), its
 * `tracestate`, then what its type holds (written by `SpanRecorder`, read by otlp-protobuf.ts).
 * Strings are a uint32 of UTF-8 bytes and those bytes; numbers float64, little-endian.
 */
export const RECORD = {
	type: 0,
	kind: 1,
	flags: 2,
	statusCode: 3,
	traceId: 4,
	spanId: 20,
	parentSpanId: 28,
	times: 36,
	strings: 52,
};
/** A span's name, status message and attributes. */
export const SPAN = 1;
/** A request span's method, route and status code (recorded-span.ts, RequestSpan). */
export const REQUEST = 2;
/**
 * A delivery attempt's event type, delivery id, webhook id, host, outcome and error (strings), its
 * attempt and status code (0: none) as uint32 (recorded-span.ts, AttemptSpan).
 */
export const ATTEMPT = 3;
export const HAS_PARENT = 1;
export const VALUE = { string: 1, boolean: 2, number: 3, array: 4 };
/**
 * The attribute keys the server's spans use: a record names one by its number (from 1), one byte
 * instead of its 10 to 25; any other key is written out after a 0.
 */
export const KNOWN_KEYS = [
	'http.request.method',
	'http.route',
	'http.response.status_code',
	'server.address',
	'traininglab.attempt',
	'traininglab.delivery.id',
	'traininglab.event.id',
	'traininglab.event.type',
	'traininglab.outcome',
	'traininglab.webhook.id',
] as const;
const KEY_NUMBERS = new Map<string, number>(KNOWN_KEYS.map((key, index) => [key, index + 1]));

/**
 * Ended spans are written this many at a time, in one loop: written one by one as each request
 * ends, between two requests' work, the writing code and its data are out of the CPU's caches
 * each time, and a span costs the server several times as much.
 */
const WRITE_EVERY = 64;
/** Fewer are written within this long of the first one's end. */
const WRITE_WITHIN_MS = 100;

/**
 * The writing side (a thread's spans): each ended span becomes a record in its ring, in one pass
 * with nothing allocated. Turning it into OTLP is the export side's work (otlp-exporter.ts).
 */
export class SpanRecorder implements SpanSink {
	readonly #ring: RingWriter;
	/** Spans ended and not yet written: fewer than WRITE_EVERY. */
	readonly #ended: (RecordedSpan | FieldSpan)[] = [];
	#timer: NodeJS.Timeout | undefined;
	#record = Buffer.alloc(64 * 1024);
	#at = 0;

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
			if (span instanceof RequestSpan) this.#writeRequest(span);
			else if (span instanceof AttemptSpan) this.#writeAttempt(span);
			else this.#writeSpan(span as RecordedSpan);
		}
		ended.length = 0;
	}

	#add(span: RecordedSpan | FieldSpan): void {
		const waiting = this.#ended.push(span);
		if (waiting === WRITE_EVERY) this.flush();
		else if (waiting === 1) this.#timer = setTimeout(() => this.flush(), WRITE_WITHIN_MS).unref();
	}

	#writeSpan(span: RecordedSpan): void {
		this.#head(
			SPAN,
			span.kind,
			span.status.code,
			span.spanContext(),
			span.startTime,
			span.endTime!,
		);
		this.#string(span.name);
		this.#string(span.status.message ?? '');
		const { attributes } = span;
		this.#room(4);
		const countAt = this.#at;
		this.#at += 4;
		let count = 0;
		for (const key in attributes) {
			const value = attributes[key];
			if (value === undefined || value === null) continue;
			const known = KEY_NUMBERS.get(key) ?? 0;
			this.#room(1);
			this.#record[this.#at++] = known;
			if (!known) this.#string(key);
			this.#value(value);
			count++;
		}
		uint32At(this.#record, countAt, count);
		this.#ring.write(this.#record, this.#at);
	}

	#writeRequest(span: RequestSpan): void {
		const error = span.statusCode >= 500 ? SpanStatusCode.ERROR : SpanStatusCode.UNSET;
		this.#head(REQUEST, SpanKind.SERVER, error, span.spanContext(), span.startTime, span.endTime);
		this.#string(span.method);
		this.#string(span.route ?? '');
		this.#room(4);
		uint32At(this.#record, this.#at, span.statusCode);
		this.#at += 4;
		this.#ring.write(this.#record, this.#at);
	}

	#writeAttempt(span: AttemptSpan): void {
		const error = span.error === null ? SpanStatusCode.UNSET : SpanStatusCode.ERROR;
		this.#head(ATTEMPT, SpanKind.CLIENT, error, span.spanContext(), span.startTime, span.endTime);
		const { of } = span;
		this.#string(of.eventType);
		this.#string(of.deliveryId);
		this.#string(of.webhookId);
		this.#string(of.host);
		this.#string(span.outcome);
		this.#string(span.error ?? '');
		this.#room(8);
		uint32At(this.#record, this.#at, of.attempt);
		uint32At(this.#record, this.#at + 4, span.statusCode ?? 0);
		this.#at += 8;
		this.#ring.write(this.#record, this.#at);
	}

	/** What every record starts with: up to its `tracestate` (RECORD). */
	#head(
		type: number,
		kind: SpanKind,
		code: SpanStatusCode,
		ids: SpanIds,
		start: number,
		end: number,
	): void {
		const record = this.#record;
		record[RECORD.type] = type;
		record[RECORD.kind] = kind;
		record[RECORD.flags] = ids.hasParent ? HAS_PARENT : 0;
		record[RECORD.statusCode] = code;
		ids.copyTo(record, RECORD.traceId);
		record.writeDoubleLE(start, RECORD.times);
		record.writeDoubleLE(end, RECORD.times + 8);
		this.#at = RECORD.strings;
		this.#string(ids.traceState?.serialize() ?? '');
	}

	/** Room for `bytes` more: the record grows for a span larger than any so far. */
	#room(bytes: number): void {
		if (this.#at + bytes <= this.#record.length) return;
		const larger = Buffer.alloc(Math.max(2 * this.#record.length, this.#at + bytes));
		this.#record.copy(larger, 0, 0, this.#at);
		this.#record = larger;
	}

	/** Its UTF-8 bytes, ASCII a character at a time (most strings here are short and ASCII). */
	#string(value: string): void {
		const length = value.length;
		this.#room(4 + 3 * length);
		const record = this.#record;
		let at = this.#at + 4;
		for (let index = 0; index < length; index++) {
			const code = value.charCodeAt(index);
			if (code >= 0x80) {
				at = this.#at + 4 + record.write(value, this.#at + 4, 'utf8');
				break;
			}
			record[at++] = code;
		}
		uint32At(record, this.#at, at - this.#at - 4);
		this.#at = at;
	}

	#value(value: AttributeValue): void {
		this.#room(1 + 8 + 4);
		const record = this.#record;
		if (typeof value === 'string') {
			record[this.#at++] = VALUE.string;
			this.#string(value);
		} else if (typeof value === 'boolean') {
			record[this.#at++] = VALUE.boolean;
			record[this.#at++] = value ? 1 : 0;
		} else if (typeof value === 'number') {
			record[this.#at++] = VALUE.number;
			record.writeDoubleLE(value, this.#at);
			this.#at += 8;
		} else {
			record[this.#at++] = VALUE.array;
			// Room for the count: #room(13) above.
			const countAt = this.#at;
			this.#at += 4;
			let count = 0;
			for (const item of value as ReadonlyArray<string | number | boolean | null | undefined>) {
				if (item === null || item === undefined) continue;
				this.#value(item);
				count++;
			}
			uint32At(this.#record, countAt, count);
		}
	}
}

/** A uint32, little-endian, stored a byte at a time: cheaper here than Buffer's checked writes. */
function uint32At(record: Buffer, at: number, value: number): void {
	record[at] = value;
	record[at + 1] = value >>> 8;
	record[at + 2] = value >>> 16;
	record[at + 3] = value >>> 24;
}
