import { varintBytes, varintSize, writeVarint } from './protobuf-body.ts';
import type { RingReader } from './span-ring.ts';

// OTLP's protobuf encoding (opentelemetry/proto: collector/trace/v1/trace_service.proto,
// trace/v1/trace.proto, common/v1/common.proto). A field's tag is its number << 3 | its wire type:
// 0 a varint, 1 eight bytes, 2 a length and that many bytes.
const LENGTH_DELIMITED = 2;
const tag = (field: number, wireType: number) => (field << 3) | wireType;
/** resource_spans, resource, attributes, scope, name, trace_id, key, string_value, values. */
export const FIRST = tag(1, LENGTH_DELIMITED);
/** scope_spans, spans, span_id, value, Status.message. */
export const SECOND = tag(2, LENGTH_DELIMITED);
export const SPAN = {
	traceState: tag(3, LENGTH_DELIMITED),
	parentSpanId: tag(4, LENGTH_DELIMITED),
	name: tag(5, LENGTH_DELIMITED),
	kind: tag(6, 0),
	startTime: tag(7, 1),
	endTime: tag(8, 1),
	attribute: tag(9, LENGTH_DELIMITED),
	status: tag(15, LENGTH_DELIMITED),
};
export const STATUS_CODE = tag(3, 0);
export const ANY_VALUE = {
	int: tag(3, 0),
};

/** What every export of a service starts with: its resource (`service.name`) and its scope. */
export interface OtlpHead {
	resource: Buffer;
	scope: Buffer;
}

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
 * The bytes of the span that starts `offset` bytes into what `ring` holds unread: its field of
 * `ScopeSpans` (`spans`: its tag, its length as a varint, the span), as span-records.ts writes it.
 */
export function spanBytesAt(ring: RingReader, offset: number): number {
	let length = 0;
	let shift = 1;
	let at = offset + 1;
	for (;;) {
		const byte = ring.byteAt(at++);
		length += (byte & 0x7f) * shift;
		if (byte < 0x80) break;
		shift *= 0x80;
	}
	return at - offset + length;
}

/**
 * One export's spans: taken from a thread's ring as they are, since each thread writes its spans
 * there as fields of OTLP's `ScopeSpans` (span-records.ts), and the export's head written in front
 * of them when it is sent. The body is reused once it has been sent.
 */
export class SpanBatch {
	/** Bytes of spans it holds. */
	readonly capacity: number;
	readonly #head: OtlpHead;
	readonly #body: Buffer;
	/** Where the spans start: the room before them takes the export's head when it is sent. */
	readonly #start: number;
	#at: number;
	spans = 0;

	constructor(head: OtlpHead, bytes: number) {
		this.#start = head.resource.length + head.scope.length + 2 * (1 + 5);
		this.#body = Buffer.allocUnsafe(this.#start + bytes);
		this.#head = head;
		this.#at = this.#start;
		this.capacity = bytes;
	}

	/**
	 * Takes whole spans from `ring`, up to `maxSpans` in all and what it has room for; true when it
	 * took all the ring held.
	 */
	take(ring: RingReader, maxSpans: number): boolean {
		const available = ring.available();
		const room = this.#body.length - this.#at;
		let bytes = 0;
		let spans = this.spans;
		while (bytes < available && spans < maxSpans) {
			const next = spanBytesAt(ring, bytes);
			if (bytes + next > room) break;
			bytes += next;
			spans++;
		}
		ring.take(this.#body, this.#at, bytes);
		this.#at += bytes;
		this.spans = spans;
		return bytes === available;
	}

	/** The export (`ExportTraceServiceRequest`): the head written in front of the spans. */
	finish(): Buffer {
		const { resource, scope } = this.#head;
		const body = this.#body;
		const scopeSpans = scope.length + (this.#at - this.#start);
		const resourceSpans = resource.length + 1 + varintSize(scopeSpans) + scopeSpans;
		let from = this.#start - scope.length;
		scope.copy(body, from);
		from -= varintSize(scopeSpans);
		writeVarint(body, from, scopeSpans);
		body[--from] = SECOND;
		from -= resource.length;
		resource.copy(body, from);
		from -= varintSize(resourceSpans);
		writeVarint(body, from, resourceSpans);
		body[--from] = FIRST;
		return body.subarray(from, this.#at);
	}

	/** Empty again, to be filled anew. */
	reset(): void {
		this.#at = this.#start;
		this.spans = 0;
	}
}
