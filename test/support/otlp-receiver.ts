import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as an OTLP/HTTP JSON export carries it (ids in hex). */
export interface ReceivedSpan {
	traceId: string;
	spanId: string;
	parentSpanId?: string;
	name: string;
	kind: number;
	service: string;
	attributes: Record<string, string | number | boolean>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean };
const valueOf = (value: AnyValue) =>
	value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.boolValue!);

/**
 * The fields of a protobuf message: field number, and the value (a number for varints and fixed
 * integers, the bytes of a length-delimited field) — the wire format, without a schema.
 */
function* fields(buffer: Buffer): Generator<[number, number | bigint | Buffer]> {
	let at = 0;
	const varint = () => {
		let value = 0n;
		for (let shift = 0n; ; shift += 7n) {
			const byte = buffer[at++];
			value |= BigInt(byte & 0x7f) << shift;
			if (byte < 0x80) return value;
		}
	};
	while (at < buffer.length) {
		const key = Number(varint());
		const wireType = key & 7;
		if (wireType === 0) yield [key >> 3, Number(varint())];
		else if (wireType === 1) yield [key >> 3, buffer.readBigUInt64LE((at += 8) - 8)];
		else if (wireType === 5) yield [key >> 3, buffer.readUInt32LE((at += 4) - 4)];
		else if (wireType === 2) {
			const length = Number(varint());
			yield [key >> 3, buffer.subarray(at, (at += length))];
		} else throw new Error(`protobuf wire type ${wireType} is not read here`);
	}
}

/** The repeated length-delimited field `number` of a message. */
const messages = (buffer: Buffer, number: number): Buffer[] =>
	[...fields(buffer)].filter(([n]) => n === number).map(([, value]) => value as Buffer);
/** The single length-delimited field `number` of a message (empty when absent). */
const field = (buffer: Buffer, number: number): Buffer =>
	messages(buffer, number)[0] ?? Buffer.alloc(0);

/** An OTLP `KeyValue` list (opentelemetry/proto/common/v1/common.proto), as the JSON encoding has it. */
function keyValues(buffers: Buffer[]): Array<{ key: string; value: AnyValue }> {
	return buffers.map((keyValue) => {
		const value: AnyValue = {};
		for (const [n, raw] of fields(field(keyValue, 2))) {
			if (n === 1) value.stringValue = (raw as Buffer).toString('utf8');
			else if (n === 2) value.boolValue = raw === 1;
			else if (n === 3) value.intValue = Number(raw);
		}
		return { key: field(keyValue, 1).toString('utf8'), value };
	});
}

/** An `ExportTraceServiceRequest` in protobuf (opentelemetry/proto/trace/v1/trace.proto), in its JSON shape. */
function exportFromProtobuf(body: Buffer) {
	return {
		resourceSpans: messages(body, 1).map((resourceSpans) => ({
			resource: { attributes: keyValues(messages(field(resourceSpans, 1), 1)) },
			scopeSpans: messages(resourceSpans, 2).map((scopeSpans) => ({
				spans: messages(scopeSpans, 2).map((span) => ({
					traceId: field(span, 1).toString('hex'),
					spanId: field(span, 2).toString('hex'),
					parentSpanId: field(span, 4).toString('hex'),
					name: field(span, 5).toString('utf8'),
					kind: Number([...fields(span)].find(([n]) => n === 6)?.[1] ?? 0),
					attributes: keyValues(messages(span, 9)),
				})),
			})),
		})),
	};
}

/**
 * A stand-in OpenTelemetry collector: accepts OTLP/HTTP trace exports, JSON (ours) or protobuf
 * (n8n's), and keeps their spans.
 */
export class OtlpReceiver {
	readonly spans: ReceivedSpan[] = [];
	url = '';
	#server!: Server;

	static async start(): Promise<OtlpReceiver> {
		const receiver = new OtlpReceiver();
		receiver.#server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				const body = Buffer.concat(chunks);
				const type = req.headers['content-type'] ?? '';
				if (req.url === '/v1/traces' && type.includes('json'))
					receiver.#keep(JSON.parse(body.toString('utf8')));
				else if (req.url === '/v1/traces' && type.includes('protobuf')) {
					// n8n exports protobuf only: the same request, decoded into the JSON shape.
					receiver.#keep(exportFromProtobuf(body));
					res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
					return;
				}
				res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
			});
		});
		await new Promise<void>((resolve) => receiver.#server.listen(0, '127.0.0.1', resolve));
		receiver.url = `http://127.0.0.1:${(receiver.#server.address() as AddressInfo).port}`;
		return receiver;
	}

	/** The spans of one trace. */
	trace(traceId: string): ReceivedSpan[] {
		return this.spans.filter((span) => span.traceId === traceId);
	}

	#keep(body: any): void {
		for (const resourceSpans of body.resourceSpans ?? []) {
			const attributes = resourceSpans.resource?.attributes ?? [];
			const service = attributes.find((a: any) => a.key === 'service.name')?.value?.stringValue;
			for (const scope of resourceSpans.scopeSpans ?? [])
				for (const span of scope.spans ?? [])
					this.spans.push({
						traceId: span.traceId,
						spanId: span.spanId,
						parentSpanId: span.parentSpanId || undefined,
						name: span.name,
						kind: span.kind,
						service,
						attributes: Object.fromEntries(
							(span.attributes ?? []).map((a: any) => [a.key, valueOf(a.value)]),
						),
					});
		}
	}

	async stop(): Promise<void> {
		this.#server.closeAllConnections();
		await new Promise((resolve) => this.#server.close(resolve));
	}
}
