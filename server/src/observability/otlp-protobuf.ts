import { varintBytes } from './protobuf-body.ts';
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
 * The bytes of the record that starts `offset` bytes into what `ring` holds unread: a span's field
 * of `ScopeSpans` (`spans`: its tag, its length as a varint, the span), as span-records.ts writes
 * it, or a record of rows framed the same way (request-rows.ts).
 */
export function recordBytesAt(ring: RingReader, offset: number): number {
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

/** The bytes of a record's tag and length, in front of its content (recordBytesAt). */
export function recordHeadBytes(ring: RingReader, offset: number): number {
	let at = offset + 1;
	while (ring.byteAt(at) >= 0x80) at++;
	return at + 1 - offset;
}
