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

/** A stand-in OpenTelemetry collector: accepts OTLP/HTTP JSON trace exports and keeps their spans. */
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
				if (req.url === '/v1/traces' && req.headers['content-type']?.includes('json'))
					receiver.#keep(JSON.parse(Buffer.concat(chunks).toString('utf8')));
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
