import type { AttributeValue } from '@opentelemetry/api';
import type { RecordedSpan } from './recorded-span.ts';

// OTLP's protobuf encoding (opentelemetry/proto: collector/trace/v1/trace_service.proto,
// trace/v1/trace.proto, common/v1/common.proto). A field's tag is its number << 3 | its wire type:
// 0 a varint, 1 eight bytes, 2 a length and that many bytes.
const LENGTH_DELIMITED = 2;
const tag = (field: number, wireType: number) => (field << 3) | wireType;
const FIRST = tag(1, LENGTH_DELIMITED); // resource_spans, resource, attributes, scope, name, trace_id, key, string_value, values
const SECOND = tag(2, LENGTH_DELIMITED); // scope_spans, spans, span_id, value, Status.message
const SPAN = {
	traceState: tag(3, LENGTH_DELIMITED),
	parentSpanId: tag(4, LENGTH_DELIMITED),
	name: tag(5, LENGTH_DELIMITED),
	kind: tag(6, 0),
	startTime: tag(7, 1),
	endTime: tag(8, 1),
	attribute: tag(9, LENGTH_DELIMITED),
	status: tag(15, LENGTH_DELIMITED),
};
const STATUS_CODE = tag(3, 0);
const ANY_VALUE = {
	bool: tag(2, 0),
	int: tag(3, 0),
	double: tag(4, 1),
	array: tag(5, LENGTH_DELIMITED),
};
const TWO_TO_32 = 2 ** 32;
const TWO_TO_63 = 2 ** 63;

/** The hex digit each character code stands for. */
const HEX = new Uint8Array(128);
for (let digit = 0; digit < 16; digit++) {
	HEX['0123456789abcdef'.charCodeAt(digit)] = digit;
	HEX['0123456789ABCDEF'.charCodeAt(digit)] = digit;
}
const double = new DataView(new ArrayBuffer(8));

/** What every export of a service starts with: its resource (`service.name`) and its scope. */
export interface OtlpHead {
	resource: Buffer;
	scope: Buffer;
}

export function otlpHead(serviceName: string): OtlpHead {
	const field = (fieldTag: number, ...parts: Buffer[]) => {
		const content = Buffer.concat(parts);
		return Buffer.concat([Buffer.from([fieldTag]), varintBytes(content.length), content]);
	};
	const text = (fieldTag: number, value: string) => field(fieldTag, Buffer.from(value, 'utf8'));
	return {
		resource: field(
			FIRST,
			field(FIRST, text(FIRST, 'service.name'), field(SECOND, text(FIRST, serviceName))),
		),
		scope: field(FIRST, text(FIRST, serviceName)),
	};
}

/**
 * One export's spans, written into its body by hand: ids from their hex, ASCII strings a character
 * at a time, nested lengths fixed up when their message is complete. Nothing is allocated per span
 * (strings built for each would be garbage for the request thread to collect), and the body is
 * reused once it has been sent.
 */
export class SpanBatch {
	readonly body: Buffer;
	/** Bytes of spans it holds. */
	readonly capacity: number;
	readonly #head: OtlpHead;
	/** Where the spans start: the room before them takes the export's head when it is sent. */
	readonly #start: number;
	/** Where the next byte goes. Past the body's end when the span being written did not fit. */
	#at: number;
	spans = 0;

	constructor(head: OtlpHead, bytes: number) {
		this.#head = head;
		this.#start = head.resource.length + head.scope.length + 2 * (1 + 5);
		this.capacity = bytes;
		// Shared memory: the span export thread sends it from where it is (span-export.ts).
		this.body = Buffer.from(new SharedArrayBuffer(this.#start + bytes));
		this.#at = this.#start;
	}

	/** Writes `span` in; false, with nothing written, when it does not fit. */
	add(span: RecordedSpan): boolean {
		const from = this.#at;
		const { traceId, spanId, traceState } = span.spanContext();
		const spanAt = this.#open(SECOND, 2);
		this.#id(FIRST, traceId);
		this.#id(SECOND, spanId);
		if (traceState) this.#string(SPAN.traceState, traceState.serialize());
		if (span.parentSpanId) this.#id(SPAN.parentSpanId, span.parentSpanId);
		this.#string(SPAN.name, span.name);
		this.#byte(SPAN.kind);
		this.#byte(span.kind + 1); // OTLP counts kinds from SPAN_KIND_INTERNAL = 1
		this.#time(SPAN.startTime, span.startTime);
		this.#time(SPAN.endTime, span.endTime!);
		const { attributes } = span;
		for (const key in attributes) {
			const value = attributes[key];
			if (value === undefined || value === null) continue;
			const keyValueAt = this.#open(SPAN.attribute, 1);
			this.#string(FIRST, key);
			const valueAt = this.#open(SECOND, 1);
			this.#anyValue(value);
			this.#close(valueAt, 1);
			this.#close(keyValueAt, 1);
		}
		const { code, message } = span.status;
		if (code || message) {
			const statusAt = this.#open(SPAN.status, 1);
			if (message) this.#string(SECOND, message);
			this.#byte(STATUS_CODE);
			this.#byte(code);
			this.#close(statusAt, 1);
		}
		this.#close(spanAt, 2);
		if (this.#at > this.body.length) {
			this.#at = from;
			return false;
		}
		this.spans++;
		return true;
	}

	/** The export (`ExportTraceServiceRequest`): the head written in front of the spans. */
	finish(): Buffer {
		const { resource, scope } = this.#head;
		const scopeSpans = scope.length + (this.#at - this.#start);
		const resourceSpans = resource.length + 1 + varintSize(scopeSpans) + scopeSpans;
		let from = this.#start - scope.length;
		scope.copy(this.body, from);
		from -= varintSize(scopeSpans);
		writeVarint(this.body, from, scopeSpans);
		this.body[--from] = SECOND;
		from -= resource.length;
		resource.copy(this.body, from);
		from -= varintSize(resourceSpans);
		writeVarint(this.body, from, resourceSpans);
		this.body[--from] = FIRST;
		return this.body.subarray(from, this.#at);
	}

	/** Empty again, to be filled anew. */
	reset(): void {
		this.#at = this.#start;
		this.spans = 0;
	}

	#byte(value: number): void {
		this.body[this.#at++] = value;
	}

	#varint(value: number): void {
		this.#at = writeVarint(this.body, this.#at, value);
	}

	/** A length-delimited field whose length is not known yet: `reserved` bytes are kept for it. */
	#open(fieldTag: number, reserved: number): number {
		this.#byte(fieldTag);
		const lengthAt = this.#at;
		this.#at += reserved;
		return lengthAt;
	}

	/** Writes the length of the field opened at `lengthAt`, moving its content if it needs more or fewer bytes. */
	#close(lengthAt: number, reserved: number): void {
		const length = this.#at - lengthAt - reserved;
		const size = varintSize(length);
		if (size !== reserved) {
			const end = this.#at + size - reserved;
			// Moved only when all of it fits: otherwise `add` takes the span back.
			if (end <= this.body.length)
				this.body.copyWithin(lengthAt + size, lengthAt + reserved, this.#at);
			this.#at = end;
		}
		writeVarint(this.body, lengthAt, length);
	}

	/** An id (trace, span) as its bytes. */
	#id(fieldTag: number, hex: string): void {
		const body = this.body;
		const bytes = hex.length >> 1;
		let at = this.#at;
		body[at++] = fieldTag;
		body[at++] = bytes;
		for (let index = 0; index < hex.length; index += 2)
			body[at++] = (HEX[hex.charCodeAt(index)] << 4) | HEX[hex.charCodeAt(index + 1)];
		this.#at = at;
	}

	/** A string field: ASCII below 128 characters a byte at a time, the rest through Buffer.write. */
	#string(fieldTag: number, value: string): void {
		const length = value.length;
		if (length < 0x80) {
			const body = this.body;
			let at = this.#at;
			body[at++] = fieldTag;
			body[at++] = length;
			for (let index = 0; index < length; index++) {
				const code = value.charCodeAt(index);
				if (code >= 0x80) return this.#utf8(fieldTag, value);
				body[at++] = code;
			}
			this.#at = at;
			return;
		}
		this.#utf8(fieldTag, value);
	}

	#utf8(fieldTag: number, value: string): void {
		const bytes = Buffer.byteLength(value, 'utf8');
		this.#byte(fieldTag);
		this.#varint(bytes);
		// Not written when it does not fit: `add` sees #at past the end and takes the span back.
		if (this.#at + bytes <= this.body.length) this.body.write(value, this.#at, 'utf8');
		this.#at += bytes;
	}

	/** Nanoseconds since the Unix epoch, from milliseconds to the microsecond, as 64 bits in two halves. */
	#time(fieldTag: number, ms: number): void {
		const micros = Math.round(ms * 1000);
		const microsHigh = Math.floor(micros / TWO_TO_32);
		const lowNanos = (micros - microsHigh * TWO_TO_32) * 1000;
		const carry = Math.floor(lowNanos / TWO_TO_32);
		this.#byte(fieldTag);
		this.#fixed32(lowNanos - carry * TWO_TO_32);
		this.#fixed32(microsHigh * 1000 + carry);
	}

	#fixed32(value: number): void {
		const body = this.body;
		const at = this.#at;
		body[at] = value;
		body[at + 1] = value >>> 8;
		body[at + 2] = value >>> 16;
		body[at + 3] = value >>> 24;
		this.#at = at + 4;
	}

	#anyValue(value: AttributeValue): void {
		if (typeof value === 'string') this.#string(FIRST, value);
		else if (typeof value === 'boolean') {
			this.#byte(ANY_VALUE.bool);
			this.#byte(value ? 1 : 0);
		} else if (typeof value === 'number') {
			if (Number.isInteger(value) && Math.abs(value) < TWO_TO_63) {
				this.#byte(ANY_VALUE.int);
				if (value >= 0 && value <= Number.MAX_SAFE_INTEGER) this.#varint(value);
				else this.#int64(value);
			} else {
				this.#byte(ANY_VALUE.double);
				double.setFloat64(0, value, true);
				for (let index = 0; index < 8; index++) this.#byte(double.getUint8(index));
			}
		} else {
			const arrayAt = this.#open(ANY_VALUE.array, 1);
			for (const item of value as ReadonlyArray<string | number | boolean | null | undefined>) {
				if (item === null || item === undefined) continue;
				const itemAt = this.#open(FIRST, 1);
				this.#anyValue(item);
				this.#close(itemAt, 1);
			}
			this.#close(arrayAt, 1);
		}
	}

	/** An int64 past a double's exact integers, or negative (its two's complement: ten bytes). */
	#int64(value: number): void {
		let rest = BigInt.asUintN(64, BigInt(value));
		while (rest >= 0x80n) {
			this.#byte(Number(rest & 0x7fn) | 0x80);
			rest >>= 7n;
		}
		this.#byte(Number(rest));
	}
}

function varintSize(value: number): number {
	let size = 1;
	while (value >= 0x80) {
		value = Math.floor(value / 0x80);
		size++;
	}
	return size;
}

/** A non-negative integer up to 2^53 as a varint at `at` of `body`; returns where it ends. */
function writeVarint(body: Buffer, at: number, value: number): number {
	while (value >= 0x80) {
		body[at++] = value % 0x80 | 0x80;
		value = Math.floor(value / 0x80);
	}
	body[at++] = value;
	return at;
}

function varintBytes(value: number): Buffer {
	const bytes = Buffer.alloc(varintSize(value));
	writeVarint(bytes, 0, value);
	return bytes;
}
