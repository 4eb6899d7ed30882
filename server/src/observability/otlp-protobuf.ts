import { ProtobufBody, varintBytes, varintSize, writeVarint } from './protobuf-body.ts';
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

export function otlpHead(resource: Record<string, string>): OtlpHead {
	const field = (fieldTag: number, ...parts: Buffer[]) => {
		const content = Buffer.concat(parts);
		return Buffer.concat([Buffer.from([fieldTag]), varintBytes(content.length), content]);
	};
	const text = (fieldTag: number, value: string) => field(fieldTag, Buffer.from(value, 'utf8'));
	const attributes = Object.entries(resource).map(([key, value]) =>
		field(FIRST, text(FIRST, key), field(SECOND, text(FIRST, value))),
	);
	return {
		resource: field(FIRST, ...attributes),
		scope: field(FIRST, text(FIRST, resource['service.name'] ?? '')),
	};
}

/**
 * One export's spans, written from the records threads wrote (span-records.ts): ids and strings
 * copied as the records hold them, nested lengths fixed up when their message is complete
 * (protobuf-body.ts). The body is reused once it has been sent.
 */
export class SpanBatch extends ProtobufBody {
	/** Bytes of spans it holds. */
	readonly capacity: number;
	readonly #head: OtlpHead;
	/** Where the spans start: the room before them takes the export's head when it is sent. */
	readonly #start: number;
	/** The record being written, where its next field is, and where the string last read starts. */
	#record: Buffer = Buffer.alloc(0);
	#recordAt = 0;
	#stringAt = 0;
	spans = 0;

	constructor(head: OtlpHead, bytes: number) {
		const start = head.resource.length + head.scope.length + 2 * (1 + 5);
		super(start + bytes, start);
		this.#head = head;
		this.#start = start;
		this.capacity = bytes;
	}

	/**
	 * Writes the span of `record` (span-records.ts) in: its bytes (ids, UTF-8 strings) copied as
	 * they are, nothing decoded into objects. False, with nothing written, when it does not fit.
	 */
	add(record: Buffer): boolean {
		const from = this.at;
		this.#record = record;
		this.#recordAt = RECORD.strings;
		const spanAt = this.open(SECOND, 2);
		this.field(FIRST, this.#record, RECORD.traceId, 16);
		this.field(SECOND, this.#record, RECORD.spanId, 8);
		const traceState = this.#nextString();
		if (traceState) this.field(SPAN.traceState, this.#record, this.#stringAt, traceState);
		if (record[RECORD.flags] & HAS_PARENT)
			this.field(SPAN.parentSpanId, this.#record, RECORD.parentSpanId, 8);
		const type = record[RECORD.type];
		if (type === REQUEST) this.#request();
		else if (type === ATTEMPT) this.#attempt();
		else this.#span();
		this.close(spanAt, 2);
		if (!this.fits()) {
			this.at = from;
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
		this.byte(SPAN.name);
		this.varint(route ? method + 1 + route : method);
		this.copy(this.#record, methodAt, method);
		if (route) {
			this.byte(0x20); // a space
			this.copy(this.#record, routeAt, route);
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
		this.byte(SPAN.name);
		this.varint(DELIVER.length + eventType);
		this.append(DELIVER);
		this.copy(this.#record, eventTypeAt, eventType);
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
		const keyValueAt = this.open(SPAN.attribute, 1);
		this.append(key);
		const valueAt = this.open(SECOND, 1);
		this.byte(ANY_VALUE.int);
		this.varint(value);
		this.close(valueAt, 1);
		this.close(keyValueAt, 1);
	}

	/** An attribute whose key was written before and whose value is a string of the record. */
	#stringAttribute(key: Buffer, at: number, length: number): void {
		const keyValueAt = this.open(SPAN.attribute, 1);
		this.append(key);
		const valueAt = this.open(SECOND, 1);
		this.field(FIRST, this.#record, at, length);
		this.close(valueAt, 1);
		this.close(keyValueAt, 1);
	}

	/** Any other span's fields, as its record holds them. */
	#span(): void {
		const name = this.#nextString();
		this.field(SPAN.name, this.#record, this.#stringAt, name);
		const message = this.#nextString();
		const messageAt = this.#stringAt;
		this.#kindAndTimes();
		for (let count = this.#nextUint32(); count > 0; count--) {
			const keyValueAt = this.open(SPAN.attribute, 1);
			const known = this.#record[this.#recordAt++];
			if (known) this.append(KEY_FIELDS[known]);
			else {
				const key = this.#nextString();
				this.field(FIRST, this.#record, this.#stringAt, key);
			}
			const valueAt = this.open(SECOND, 1);
			this.#anyValue();
			this.close(valueAt, 1);
			this.close(keyValueAt, 1);
		}
		this.#status(messageAt, message);
	}

	#kindAndTimes(): void {
		const record = this.#record;
		this.byte(SPAN.kind);
		this.byte(record[RECORD.kind] + 1); // OTLP counts kinds from SPAN_KIND_INTERNAL = 1
		this.time(SPAN.startTime, record.readDoubleLE(RECORD.times));
		this.time(SPAN.endTime, record.readDoubleLE(RECORD.times + 8));
	}

	/** The span's status: its code from the record, and a message when it has one. */
	#status(messageAt: number, message: number): void {
		const code = this.#record[RECORD.statusCode];
		if (!code && !message) return;
		const statusAt = this.open(SPAN.status, 1);
		if (message) this.field(SECOND, this.#record, messageAt, message);
		this.byte(STATUS_CODE);
		this.byte(code);
		this.close(statusAt, 1);
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
			this.field(FIRST, this.#record, this.#stringAt, length);
		} else if (type === VALUE.boolean) {
			this.byte(ANY_VALUE.bool);
			this.byte(record[this.#recordAt++]);
		} else if (type === VALUE.number) {
			const value = record.readDoubleLE(this.#recordAt);
			if (Number.isInteger(value) && Math.abs(value) < TWO_TO_63) {
				this.byte(ANY_VALUE.int);
				if (value >= 0 && value <= Number.MAX_SAFE_INTEGER) this.varint(value);
				else this.int64(value);
			} else {
				this.byte(ANY_VALUE.double);
				this.copy(this.#record, this.#recordAt, 8);
			}
			this.#recordAt += 8;
		} else {
			const arrayAt = this.open(ANY_VALUE.array, 1);
			for (let count = this.#nextUint32(); count > 0; count--) {
				const itemAt = this.open(FIRST, 1);
				this.#anyValue();
				this.close(itemAt, 1);
			}
			this.close(arrayAt, 1);
		}
	}

	/** The export (`ExportTraceServiceRequest`): the head written in front of the spans. */
	finish(): Buffer {
		const { resource, scope } = this.#head;
		const scopeSpans = scope.length + (this.at - this.#start);
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
		return this.body.subarray(from, this.at);
	}

	/** Empty again, to be filled anew. */
	reset(): void {
		this.at = this.#start;
		this.spans = 0;
	}
}
