import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AttributeValue } from '@opentelemetry/api';
import type { RecordedSpan, SpanSink } from './recorded-span.ts';

/** Spans kept while an export is under way or the collector is slow: past it, new ones are dropped. */
const MAX_QUEUED = 4096;
/** Spans one export carries: a full batch is sent at once. */
const MAX_BATCH = 512;
/** A span of a batch not yet full is exported within about this long of its end. */
const EXPORT_EVERY_MS = 1000;
/** How long one export may take before it is given up (its spans dropped). */
const EXPORT_TIMEOUT_MS = 5000;

/**
 * Spans to an OpenTelemetry collector over OTLP/HTTP with JSON bodies (`POST <endpoint>/v1/traces`):
 * a batch as soon as it is full, or a second after its first span, one export at a time. A failed
 * or slow export drops its batch: traces are best effort and never hold up the server.
 * A span is kept encoded, one flat string, from the moment it ends, rather than as the objects it
 * is made of, which would outlive V8's young generation at thousands of requests a second.
 */
export class OtlpJsonExporter implements SpanSink {
	readonly #url: URL;
	/** The export's `resource` and `scope`, the same in every batch. */
	readonly #head: string;
	#queue: string[] = [];
	#timer: NodeJS.Timeout | undefined;
	/** The export under way: at most one. */
	#sending: Promise<void> | undefined;
	#closing = false;

	constructor(endpoint: string, serviceName: string) {
		this.#url = new URL(`${endpoint.replace(/\/+$/, '')}/v1/traces`);
		this.#head = `{"resourceSpans":[{"resource":{"attributes":[${attributeJson('service.name', serviceName)}]},"scopeSpans":[{"scope":{"name":${JSON.stringify(serviceName)}},"spans":[`;
	}

	add(span: RecordedSpan): void {
		if (this.#closing || this.#queue.length >= MAX_QUEUED) return;
		this.#queue.push(spanJson(span));
		this.#schedule();
	}

	/** Sends what is queued, then stops taking spans. */
	async shutdown(): Promise<void> {
		this.#closing = true;
		this.#schedule();
		while (this.#sending) await this.#sending;
	}

	/** A full batch (or, closing, whatever is queued) now; a partial one a second after its first span. */
	#schedule(): void {
		if (this.#closing || this.#queue.length >= MAX_BATCH) this.#flush();
		else if (this.#queue.length > 0)
			this.#timer ??= setTimeout(() => this.#flush(), EXPORT_EVERY_MS).unref();
	}

	/** Sends the next batch, unless an export is under way: that one schedules the next when it ends. */
	#flush(): void {
		clearTimeout(this.#timer);
		this.#timer = undefined;
		if (this.#sending || this.#queue.length === 0) return;
		const batch = this.#queue.splice(0, MAX_BATCH);
		const body = Buffer.from(`${this.#head}${batch.join(',')}]}]}]}`);
		this.#sending = this.#send(body).then(() => {
			this.#sending = undefined;
			this.#schedule();
		});
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

/**
 * One span in OTLP's JSON encoding (kinds there count from SPAN_KIND_INTERNAL = 1), written out by
 * hand on the thread that answers requests: ids, kinds, codes and times need no escaping, and
 * JSON.stringify over a fresh object per span took 1.6 times as long (test/server/otlp-export.test.ts
 * holds the encoding).
 */
function spanJson(span: RecordedSpan): string {
	const { traceId, spanId, traceState } = span.spanContext();
	let json = `{"traceId":"${traceId}","spanId":"${spanId}"`;
	if (span.parentSpanId) json += `,"parentSpanId":"${span.parentSpanId}"`;
	if (traceState) json += `,"traceState":${JSON.stringify(traceState.serialize())}`;
	json += `,"name":${JSON.stringify(span.name)},"kind":${span.kind + 1}`;
	json += `,"startTimeUnixNano":"${span.startTimeUnixNano}","endTimeUnixNano":"${span.endTimeUnixNano}"`;
	let attributes = '';
	for (const [key, value] of Object.entries(span.attributes))
		if (value !== undefined) attributes += `${attributes ? ',' : ''}${attributeJson(key, value)}`;
	const { code, message } = span.status;
	const status = message
		? `{"code":${code},"message":${JSON.stringify(message)}}`
		: `{"code":${code}}`;
	return `${json},"attributes":[${attributes}],"status":${status}}`;
}

function attributeJson(key: string, value: AttributeValue): string {
	return `{"key":${JSON.stringify(key)},"value":${anyValueJson(value)}}`;
}

function anyValueJson(value: AttributeValue): string {
	if (typeof value === 'string') return `{"stringValue":${JSON.stringify(value)}}`;
	if (typeof value === 'boolean') return `{"boolValue":${value}}`;
	if (typeof value === 'number')
		return Number.isInteger(value)
			? `{"intValue":${value}}`
			: `{"doubleValue":${JSON.stringify(value)}}`;
	const items = (value as unknown[]).filter((item) => item !== null && item !== undefined);
	return `{"arrayValue":{"values":[${items.map((item) => anyValueJson(item as AttributeValue)).join(',')}]}}`;
}
