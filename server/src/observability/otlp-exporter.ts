import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AttributeValue } from '@opentelemetry/api';
import type { RecordedSpan, SpanSink } from './recorded-span.ts';

/** Spans kept while the collector is slow or away: past it, new ones are dropped. */
const MAX_QUEUED = 4096;
/** Spans one export carries. */
const MAX_BATCH = 512;
/** A span is exported within about this long of its end. */
const EXPORT_EVERY_MS = 1000;
/** How long one export may take before it is given up (its spans dropped). */
const EXPORT_TIMEOUT_MS = 5000;

/**
 * Spans to an OpenTelemetry collector over OTLP/HTTP with JSON bodies (`POST <endpoint>/v1/traces`),
 * in batches about a second apart, off the request path. A failed or slow export drops its batch:
 * traces are best effort and never hold up the server.
 */
export class OtlpJsonExporter implements SpanSink {
	readonly #url: URL;
	/** The export's `resource` and `scope`, the same in every batch. */
	readonly #head: string;
	#queue: RecordedSpan[] = [];
	#timer: NodeJS.Timeout | undefined;
	#sending: Promise<void> = Promise.resolve();

	constructor(endpoint: string, serviceName: string) {
		this.#url = new URL(`${endpoint.replace(/\/+$/, '')}/v1/traces`);
		this.#head = `{"resourceSpans":[{"resource":{"attributes":[${attributeJson('service.name', serviceName)}]},"scopeSpans":[{"scope":{"name":${JSON.stringify(serviceName)}},"spans":[`;
	}

	add(span: RecordedSpan): void {
		if (this.#queue.length >= MAX_QUEUED) return;
		this.#queue.push(span);
		this.#timer ??= setTimeout(() => this.#flush(), EXPORT_EVERY_MS).unref();
	}

	/** Sends what is queued, then stops taking spans. */
	async shutdown(): Promise<void> {
		clearTimeout(this.#timer);
		while (this.#queue.length > 0) this.#flush();
		this.add = () => {};
		await this.#sending;
	}

	#flush(): void {
		this.#timer = undefined;
		const batch = this.#queue.splice(0, MAX_BATCH);
		if (this.#queue.length > 0) this.#timer = setTimeout(() => this.#flush(), 0).unref();
		if (batch.length === 0) return;
		const body = Buffer.from(`${this.#head}${batch.map(spanJson).join(',')}]}]}]}`);
		this.#sending = this.#sending.then(() => this.#send(body));
	}

	#send(body: Buffer): Promise<void> {
		return new Promise((resolve) => {
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
					res.on('end', resolve);
					res.on('error', resolve);
				},
			);
			req.on('timeout', () => req.destroy(new Error('OTLP export timed out')));
			req.on('error', () => resolve());
			req.end(body);
		});
	}
}

/** One span in OTLP's JSON encoding (kinds there count from SPAN_KIND_INTERNAL = 1). */
function spanJson(span: RecordedSpan): string {
	const context = span.spanContext();
	return JSON.stringify({
		traceId: context.traceId,
		spanId: context.spanId,
		...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
		...(context.traceState ? { traceState: context.traceState.serialize() } : {}),
		name: span.name,
		kind: span.kind + 1,
		startTimeUnixNano: span.startTimeUnixNano,
		endTimeUnixNano: span.endTimeUnixNano,
		attributes: Object.entries(span.attributes).flatMap(([key, value]) =>
			value === undefined ? [] : [{ key, value: anyValue(value) }],
		),
		status: span.status.message
			? { code: span.status.code, message: span.status.message }
			: { code: span.status.code },
	});
}

function attributeJson(key: string, value: AttributeValue): string {
	return JSON.stringify({ key, value: anyValue(value) });
}

function anyValue(value: AttributeValue): object {
	if (typeof value === 'string') return { stringValue: value };
	if (typeof value === 'boolean') return { boolValue: value };
	if (typeof value === 'number')
		return Number.isInteger(value) ? { intValue: value } : { doubleValue: value };
	const items = (value as unknown[]).filter((item) => item !== null && item !== undefined);
	return { arrayValue: { values: items.map((item) => anyValue(item as AttributeValue)) } };
}
