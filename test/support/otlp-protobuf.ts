import protobuf from 'protobufjs';

/**
 * The messages of an OTLP trace export (opentelemetry/proto: collector/trace/v1/trace_service.proto,
 * trace/v1/trace.proto, common/v1/common.proto, resource/v1/resource.proto), the fields a test
 * reads, for protobufjs to decode: what a collector reads of the server's exports and n8n's.
 */
const ExportTraceServiceRequest = protobuf.Root.fromJSON({
	nested: {
		ExportTraceServiceRequest: {
			fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } },
		},
		ResourceSpans: {
			fields: {
				resource: { type: 'Resource', id: 1 },
				scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 },
			},
		},
		Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
		ScopeSpans: {
			fields: {
				scope: { type: 'InstrumentationScope', id: 1 },
				spans: { rule: 'repeated', type: 'Span', id: 2 },
			},
		},
		InstrumentationScope: { fields: { name: { type: 'string', id: 1 } } },
		Span: {
			fields: {
				traceId: { type: 'bytes', id: 1 },
				spanId: { type: 'bytes', id: 2 },
				traceState: { type: 'string', id: 3 },
				parentSpanId: { type: 'bytes', id: 4 },
				name: { type: 'string', id: 5 },
				kind: { type: 'int32', id: 6 },
				startTimeUnixNano: { type: 'fixed64', id: 7 },
				endTimeUnixNano: { type: 'fixed64', id: 8 },
				attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
				status: { type: 'Status', id: 15 },
			},
		},
		Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
		KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
		AnyValue: {
			// A oneof, as in common.proto: a value that is its type's default (false, "", 0) is kept.
			oneofs: {
				value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue'] },
			},
			fields: {
				stringValue: { type: 'string', id: 1 },
				boolValue: { type: 'bool', id: 2 },
				intValue: { type: 'int64', id: 3 },
				doubleValue: { type: 'double', id: 4 },
				arrayValue: { type: 'ArrayValue', id: 5 },
			},
		},
		ArrayValue: { fields: { values: { rule: 'repeated', type: 'AnyValue', id: 1 } } },
	},
}).lookupType('ExportTraceServiceRequest');

export type AnyValue = {
	stringValue?: string;
	boolValue?: boolean;
	/** int64, as OTLP's JSON writes it: a decimal string. */
	intValue?: string;
	doubleValue?: number;
	arrayValue?: { values: AnyValue[] };
};
export type KeyValue = { key: string; value: AnyValue };
export interface DecodedSpan {
	traceId: string;
	spanId: string;
	parentSpanId?: string;
	traceState?: string;
	name: string;
	kind: number;
	/** Nanoseconds since the Unix epoch, a decimal string. */
	startTimeUnixNano: string;
	endTimeUnixNano: string;
	attributes: KeyValue[];
	status?: { code?: number; message?: string };
}
export interface DecodedExport {
	resourceSpans: Array<{
		resource: { attributes: KeyValue[] };
		scopeSpans: Array<{ scope: { name: string }; spans: DecodedSpan[] }>;
	}>;
}

/** An OTLP/HTTP protobuf trace export, in the shape OTLP's JSON encoding gives it (ids in hex). */
export function decodeTraceExport(body: Uint8Array): DecodedExport {
	const decoded = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), {
		longs: String,
		arrays: true,
	}) as DecodedExport;
	const hex = (bytes: unknown) => Buffer.from(bytes as Uint8Array).toString('hex');
	for (const resourceSpans of decoded.resourceSpans)
		for (const scopeSpans of resourceSpans.scopeSpans)
			for (const span of scopeSpans.spans) {
				// proto3 leaves out a string that is empty
				span.name ??= '';
				for (const attribute of span.attributes) attribute.key ??= '';
				span.traceId = hex(span.traceId);
				span.spanId = hex(span.spanId);
				if (span.parentSpanId !== undefined) span.parentSpanId = hex(span.parentSpanId);
			}
	return decoded;
}
