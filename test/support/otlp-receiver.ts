import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeTraceExport, type AnyValue, type DecodedExport } from './otlp-protobuf.ts';

/** A span as a collector reads it from an OTLP/HTTP export (ids in hex). */
export interface ReceivedSpan {
	traceId: string;
	spanId: string;
	parentSpanId?: string;
	name: string;
	kind: number;
	service: string;
	/** The attributes of the resource it came from, `service.name` among them. */
	resource: Record<string, string | number | boolean>;
	attributes: Record<string, string | number | boolean>;
	/** The path and the headers of the export that carried it. */
	exportedTo: string;
	exportedWith: IncomingHttpHeaders;
}

const valueOf = (value: AnyValue) =>
	value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.boolValue!);

/**
 * A stand-in OpenTelemetry collector: accepts OTLP/HTTP trace exports in protobuf (the server's
 * and n8n's) at any path (`/v1/traces` unless a sender is told otherwise), and keeps their spans.
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
				if (req.method === 'POST' && req.headers['content-type']?.includes('protobuf'))
					receiver.#keep(decodeTraceExport(Buffer.concat(chunks)), req.url!, req.headers);
				res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
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

	#keep(body: DecodedExport, exportedTo: string, exportedWith: IncomingHttpHeaders): void {
		for (const resourceSpans of body.resourceSpans) {
			const resource = Object.fromEntries(
				(resourceSpans.resource?.attributes ?? []).map((a) => [a.key, valueOf(a.value)]),
			);
			const service = String(resource['service.name'] ?? '');
			for (const scope of resourceSpans.scopeSpans)
				for (const span of scope.spans)
					this.spans.push({
						traceId: span.traceId,
						spanId: span.spanId,
						parentSpanId: span.parentSpanId || undefined,
						name: span.name,
						kind: span.kind,
						service,
						resource,
						attributes: Object.fromEntries(span.attributes.map((a) => [a.key, valueOf(a.value)])),
						exportedTo,
						exportedWith,
					});
		}
	}

	async stop(): Promise<void> {
		this.#server.closeAllConnections();
		await new Promise((resolve) => this.#server.close(resolve));
	}
}
