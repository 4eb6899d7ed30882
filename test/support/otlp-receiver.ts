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
	attributes: Record<string, string | number | boolean>;
	/** The headers of the export that carried it. */
	exportedWith: IncomingHttpHeaders;
}

const valueOf = (value: AnyValue) =>
	value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : value.boolValue!);

/**
 * A stand-in OpenTelemetry collector: accepts OTLP/HTTP trace exports in protobuf (the server's
 * and n8n's), and keeps their spans.
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
				if (req.url === '/v1/traces' && req.headers['content-type']?.includes('protobuf'))
					receiver.#keep(decodeTraceExport(Buffer.concat(chunks)), req.headers);
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

	#keep(body: DecodedExport, exportedWith: IncomingHttpHeaders): void {
		for (const resourceSpans of body.resourceSpans) {
			const { attributes } = resourceSpans.resource ?? { attributes: [] };
			const service = attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
			for (const scope of resourceSpans.scopeSpans)
				for (const span of scope.spans)
					this.spans.push({
						traceId: span.traceId,
						spanId: span.spanId,
						parentSpanId: span.parentSpanId || undefined,
						name: span.name,
						kind: span.kind,
						service,
						attributes: Object.fromEntries(span.attributes.map((a) => [a.key, valueOf(a.value)])),
						exportedWith,
					});
		}
	}

	async stop(): Promise<void> {
		this.#server.closeAllConnections();
		await new Promise((resolve) => this.#server.close(resolve));
	}
}
