import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

/** How long one export may take before it is given up (its spans dropped). */
const EXPORT_TIMEOUT_MS = 5000;

/**
 * Spans to an OpenTelemetry collector over OTLP/HTTP with JSON bodies (`POST <endpoint>/v1/traces`).
 * A failed or slow export drops its batch: traces are best effort and never hold up the server.
 * (OpenTelemetry's own HTTP exporter loads `http` with a dynamic import, which jest's module
 * sandbox cannot run; this one is the same protocol with the same serializer.)
 */
export class OtlpJsonExporter implements SpanExporter {
	readonly #url: URL;
	#stopped = false;

	constructor(endpoint: string) {
		this.#url = new URL(`${endpoint.replace(/\/+$/, '')}/v1/traces`);
	}

	export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
		if (this.#stopped) return done({ code: ExportResultCode.FAILED });
		const body = JsonTraceSerializer.serializeRequest(spans);
		if (!body) return done({ code: ExportResultCode.FAILED });
		const send = this.#url.protocol === 'https:' ? httpsRequest : httpRequest;
		const req = send(
			this.#url,
			{
				method: 'POST',
				headers: { 'content-type': 'application/json', 'content-length': body.byteLength },
				timeout: EXPORT_TIMEOUT_MS,
			},
			(res) => {
				res.resume();
				res.on('end', () =>
					done({
						code:
							res.statusCode !== undefined && res.statusCode < 300
								? ExportResultCode.SUCCESS
								: ExportResultCode.FAILED,
					}),
				);
			},
		);
		req.on('timeout', () => req.destroy(new Error('OTLP export timed out')));
		req.on('error', (error) => done({ code: ExportResultCode.FAILED, error }));
		req.end(body);
	}

	async shutdown(): Promise<void> {
		this.#stopped = true;
	}

	async forceFlush(): Promise<void> {}
}
