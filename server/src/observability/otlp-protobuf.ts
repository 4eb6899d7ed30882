import { ATTEMPT, HAS_PARENT, KNOWN_KEYS, RECORD, REQUEST, VALUE } from './span-records.ts';

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

/** What every export of a service starts with: its resource (`service.name`) and its scope. */
export interface OtlpHead {
	resource: Buffer;
	scope: Buffer;
}

/** The key field of each known attribute key, by its number in a record (span-records.ts). */
const KEY_FIELDS = [
	Buffer.alloc(0),
	...KNOWN_KEYS.map((key) => Buffer.from([FIRST, key.length, ...Buffer.from(key, 'ascii')])),
];
const keyField = (key: (typeof KNOWN_KEYS)[number]) => KEY_FIELDS[KNOWN_KEYS.indexOf(key) + 1];
/** The key fields of a request span's attributes, and of an attempt's. */
const REQUEST_KEYS = {
	method: keyField('http.request.method'),
	route: keyField('http.route'),
	statusCode: keyField('http.response.status_code'),
};
const ATTEMPT_KEYS = {
	deliveryId: keyField('traininglab.delivery.id'),
	webhookId: keyField('traininglab.webhook.id'),
	eventType: keyField('traininglab.event.type'),
	attempt: keyField('traininglab.attempt'),
	host: keyField('server.address'),
	outcome: keyField('traininglab.outcome'),
	statusCode: keyField('http.response.status_code'),
};
const DELIVER = Buffer.from('deliver ', 'ascii');

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
 * at a time, nested lengths fixed up when their message is complete. The body is reused once it
 * has been sent.
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
	/** The record being written, where its next field is, and where the string last read starts. */
	#record: Buffer = Buffer.alloc(0);
	#recordAt = 0;
	#stringAt = 0;
	spans = 0;

	constructor(head: OtlpHead, bytes: number) {
		this.#head = head;
		this.#start = head.resource.length + head.scope.length + 2 * (1 + 5);
		this.capacity = bytes;
		this.body = Buffer.allocUnsafe(this.#start + bytes);
		this.#at = this.#start;
	}

	/**
	 * Writes the span of `record` (span-records.ts) in: its bytes (ids, UTF-8 strings) copied as
	 * they are, nothing decoded into objects. False, with nothing written, when it does not fit.
	 */
	add(record: Buffer): boolean {
		const from = this.#at;
		this.#record = record;
		this.#recordAt = RECORD.strings;
		const spanAt = this.#open(SECOND, 2);
		this.#bytes(FIRST, RECORD.traceId, 16);
		this.#bytes(SECOND, RECORD.spanId, 8);
		const traceState = this.#nextString();
		if (traceState) this.#bytes(SPAN.traceState, this.#stringAt, traceState);
		if (record[RECORD.flags] & HAS_PARENT) this.#bytes(SPAN.parentSpanId, RECORD.parentSpanId, 8);
		const type = record[RECORD.type];
		if (type === REQUEST) this.#request();
		else if (type === ATTEMPT) this.#attempt();
		else this.#span();
		this.#close(spanAt, 2);
		if (this.#at > this.body.length) {
			this.#at = from;
			return false;
		}
		this.spans++;
		return true;
	}

	/** A request span's fields: its name and attributes from its method, route and status. */
	#request(): void {
		const method = this.#nextString();
		const methodAt = this.#stringAt;
		const route = this.#nextString();
		const routeAt = this.#stringAt;
		const statusCode = this.#nextUint32();
		this.#byte(SPAN.name);
		this.#varint(route ? method + 1 + route : method);
		this.#copy(methodAt, method);
		if (route) {
			this.#byte(0x20); // a space
			this.#copy(routeAt, route);
		}
		this.#kindAndTimes();
		this.#stringAttribute(REQUEST_KEYS.method, methodAt, method);
		if (route) this.#stringAttribute(REQUEST_KEYS.route, routeAt, route);
		this.#intAttribute(REQUEST_KEYS.statusCode, statusCode);
		this.#status(0, 0);
	}

	/** A delivery attempt's fields: `deliver <event type>`, and its attributes in their order. */
	#attempt(): void {
		const eventType = this.#nextString();
		const eventTypeAt = this.#stringAt;
		this.#byte(SPAN.name);
		this.#varint(DELIVER.length + eventType);
		this.#append(DELIVER);
		this.#copy(eventTypeAt, eventType);
		this.#kindAndTimes();
		const deliveryId = this.#nextString();
		const deliveryIdAt = this.#stringAt;
		const webhookId = this.#nextString();
		const webhookIdAt = this.#stringAt;
		const host = this.#nextString();
		const hostAt = this.#stringAt;
		const outcome = this.#nextString();
		const outcomeAt = this.#stringAt;
		const error = this.#nextString();
		const errorAt = this.#stringAt;
		const attempt = this.#nextUint32();
		const statusCode = this.#nextUint32();
		this.#stringAttribute(ATTEMPT_KEYS.deliveryId, deliveryIdAt, deliveryId);
		this.#stringAttribute(ATTEMPT_KEYS.webhookId, webhookIdAt, webhookId);
		this.#stringAttribute(ATTEMPT_KEYS.eventType, eventTypeAt, eventType);
		this.#intAttribute(ATTEMPT_KEYS.attempt, attempt);
		this.#stringAttribute(ATTEMPT_KEYS.host, hostAt, host);
		this.#stringAttribute(ATTEMPT_KEYS.outcome, outcomeAt, outcome);
		if (statusCode) this.#intAttribute(ATTEMPT_KEYS.statusCode, statusCode);
		this.#status(errorAt, error);
	}

	/** An attribute whose key was written before and whose value is a non-negative integer. */
	#intAttribute(key: Buffer, value: number): void {
		const keyValueAt = this.#open(SPAN.attribute, 1);
		this.#append(key);
		const valueAt = this.#open(SECOND, 1);
		this.#byte(ANY_VALUE.int);
		this.#varint(value);
		this.#close(valueAt, 1);
		this.#close(keyValueAt, 1);
	}

	/** An attribute whose key was written before and whose value is a string of the record. */
	#stringAttribute(key: Buffer, at: number, length: number): void {
		const keyValueAt = this.#open(SPAN.attribute, 1);
		this.#append(key);
		const valueAt = this.#open(SECOND, 1);
		this.#bytes(FIRST, at, length);
		this.#close(valueAt, 1);
		this.#close(keyValueAt, 1);
	}

	/** Any other span's fields, as its record holds them. */
	#span(): void {
		const name = this.#nextString();
		this.#bytes(SPAN.name, this.#stringAt, name);
		const message = this.#nextString();
		const messageAt = this.#stringAt;
		this.#kindAndTimes();
		for (let count = this.#nextUint32(); count > 0; count--) {
			const keyValueAt = this.#open(SPAN.attribute, 1);
			const known = this.#record[this.#recordAt++];
			if (known) this.#append(KEY_FIELDS[known]);
			else {
				const key = this.#nextString();
				this.#bytes(FIRST, this.#stringAt, key);
			}
			const valueAt = this.#open(SECOND, 1);
			this.#anyValue();
			this.#close(valueAt, 1);
			this.#close(keyValueAt, 1);
		}
		this.#status(messageAt, message);
	}

	#kindAndTimes(): void {
		const record = this.#record;
		this.#byte(SPAN.kind);
		this.#byte(record[RECORD.kind] + 1); // OTLP counts kinds from SPAN_KIND_INTERNAL = 1
		this.#time(SPAN.startTime, record.readDoubleLE(RECORD.times));
		this.#time(SPAN.endTime, record.readDoubleLE(RECORD.times + 8));
	}

	/** The span's status: its code from the record, and a message when it has one. */
	#status(messageAt: number, message: number): void {
		const code = this.#record[RECORD.statusCode];
		if (!code && !message) return;
		const statusAt = this.#open(SPAN.status, 1);
		if (message) this.#bytes(SECOND, messageAt, message);
		this.#byte(STATUS_CODE);
		this.#byte(code);
		this.#close(statusAt, 1);
	}

	#nextUint32(): number {
		this.#recordAt += 4;
		return this.#record.readUInt32LE(this.#recordAt - 4);
	}

	/** The length of the record's next string, which starts at #stringAt. */
	#nextString(): number {
		const length = this.#nextUint32();
		this.#stringAt = this.#recordAt;
		this.#recordAt += length;
		return length;
	}

	/** An attribute value as the record holds it (span-records.ts). */
	#anyValue(): void {
		const record = this.#record;
		const type = record[this.#recordAt++];
		if (type === VALUE.string) {
			const length = this.#nextString();
			this.#bytes(FIRST, this.#stringAt, length);
		} else if (type === VALUE.boolean) {
			this.#byte(ANY_VALUE.bool);
			this.#byte(record[this.#recordAt++]);
		} else if (type === VALUE.number) {
			const value = record.readDoubleLE(this.#recordAt);
			if (Number.isInteger(value) && Math.abs(value) < TWO_TO_63) {
				this.#byte(ANY_VALUE.int);
				if (value >= 0 && value <= Number.MAX_SAFE_INTEGER) this.#varint(value);
				else this.#int64(value);
			} else {
				this.#byte(ANY_VALUE.double);
				this.#copy(this.#recordAt, 8);
			}
			this.#recordAt += 8;
		} else {
			const arrayAt = this.#open(ANY_VALUE.array, 1);
			for (let count = this.#nextUint32(); count > 0; count--) {
				const itemAt = this.#open(FIRST, 1);
				this.#anyValue();
				this.#close(itemAt, 1);
			}
			this.#close(arrayAt, 1);
		}
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

	/** A length-delimited field: `length` bytes of the record, from `at`. */
	#bytes(fieldTag: number, at: number, length: number): void {
		this.#byte(fieldTag);
		this.#varint(length);
		this.#copy(at, length);
	}

	/** `length` bytes of the record, from `at`. Not copied when they do not fit: `add` takes the span back. */
	#copy(at: number, length: number): void {
		if (this.#at + length <= this.body.length)
			this.#record.copy(this.body, this.#at, at, at + length);
		this.#at += length;
	}

	/** Bytes written before (a field of its own, in full). */
	#append(bytes: Buffer): void {
		if (this.#at + bytes.length <= this.body.length) bytes.copy(this.body, this.#at);
		this.#at += bytes.length;
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
