import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AttributeValue } from '@opentelemetry/api';
import { unixNano, type RecordedSpan, type SpanSink } from './recorded-span.ts';

/** Spans kept while an export is under way or the collector is slow: past it, new ones are dropped. */
const MAX_QUEUED = 4096;
/** Spans one export carries: a full batch is sent at once. */
const MAX_BATCH = 512;
/** Ended spans are written into the batch this many at a time. */
const ENCODE_EVERY = 64;
/** Room for one batch's body: a server span is about 500 bytes; a batch that fills it is sent early. */
const BATCH_BYTES = 512 * 1024;
/** A span of a batch not yet full is exported within about this long of its end. */
const EXPORT_EVERY_MS = 1000;
/** How long one export may take before it is given up (its spans dropped). */
const EXPORT_TIMEOUT_MS = 5000;
const TAIL = ']}]}]}';
const COMMA = 0x2c;

/** One export's body as it fills: the head, then spans written in as they end. */
interface Batch {
	body: Buffer;
	bytes: number;
	spans: number;
}

/**
 * Spans to an OpenTelemetry collector over OTLP/HTTP with JSON bodies (`POST <endpoint>/v1/traces`):
 * a batch as soon as it is full, or a second after its first span, one export at a time. A failed
 * or slow export drops its batch: traces are best effort and never hold up the server.
 * Ended spans are encoded 64 at a time, in one loop that stays in the CPU's caches, into the
 * batch's body, a buffer outside V8's heap: encoded one by one as each request ends, a span cost
 * the server several times what the loop costs; kept as objects or strings until the export, hundreds
 * of them would outlive V8's young generation at thousands of requests a second.
 */
export class OtlpJsonExporter implements SpanSink {
	readonly #url: URL;
	/** The export's `resource` and `scope`, the same in every batch. */
	readonly #head: string;
	/** Spans ended and not yet encoded: fewer than ENCODE_EVERY. */
	#ended: RecordedSpan[] = [];
	/** Batches full or waiting for their second, oldest first; the last one is filling. */
	#batches: Batch[] = [];
	/** Spans taken and not yet handed to an export. */
	#queued = 0;
	#timer: NodeJS.Timeout | undefined;
	/** The export under way: at most one. */
	#sending: Promise<void> | undefined;
	#closing = false;

	constructor(endpoint: string, serviceName: string) {
		this.#url = new URL(`${endpoint.replace(/\/+$/, '')}/v1/traces`);
		this.#head = `{"resourceSpans":[{"resource":{"attributes":[${attributeJson('service.name', serviceName)}]},"scopeSpans":[{"scope":{"name":${JSON.stringify(serviceName)}},"spans":[`;
	}

	add(span: RecordedSpan): void {
		if (this.#closing || this.#queued >= MAX_QUEUED) return;
		this.#queued++;
		if (this.#ended.push(span) < ENCODE_EVERY) {
			this.#flushWithinASecond();
			return;
		}
		this.#encodeEnded();
		this.#schedule();
	}

	/** Sends what is queued, then stops taking spans. */
	async shutdown(): Promise<void> {
		this.#closing = true;
		this.#schedule();
		while (this.#sending) await this.#sending;
	}

	/** Writes the ended spans into the filling batch, starting new ones as batches fill. */
	#encodeEnded(): void {
		const ended = this.#ended;
		if (ended.length === 0) return;
		this.#ended = [];
		for (let at = 0; at < ended.length; ) {
			let batch = this.#batches.at(-1);
			if (!batch || batch.spans === MAX_BATCH) this.#batches.push((batch = this.#newBatch(0)));
			const end = Math.min(ended.length, at + MAX_BATCH - batch.spans);
			let json = spanJson(ended[at]);
			for (let index = at + 1; index < end; index++) json += `,${spanJson(ended[index])}`;
			// At most 3 bytes a UTF-16 unit in UTF-8, a comma before and the tail after.
			const room = json.length * 3 + 1 + TAIL.length;
			if (batch.body.length - batch.bytes < room && batch.spans > 0)
				this.#batches.push((batch = this.#newBatch(room)));
			if (batch.spans > 0) batch.body[batch.bytes++] = COMMA;
			batch.bytes += batch.body.write(json, batch.bytes);
			batch.spans += end - at;
			at = end;
		}
	}

	#newBatch(room: number): Batch {
		const body = Buffer.allocUnsafeSlow(Math.max(BATCH_BYTES, this.#head.length * 3 + room));
		return { body, bytes: body.write(this.#head), spans: 0 };
	}

	/** A full batch (or, closing, whatever is queued) now; a partial one a second after its first span. */
	#schedule(): void {
		if (this.#closing) this.#encodeEnded();
		const first = this.#batches[0];
		if (first && (this.#closing || this.#batches.length > 1 || first.spans === MAX_BATCH))
			this.#flush();
		else if (first || this.#ended.length > 0) this.#flushWithinASecond();
	}

	#flushWithinASecond(): void {
		this.#timer ??= setTimeout(() => this.#flush(), EXPORT_EVERY_MS).unref();
	}

	/** Sends the oldest batch, unless an export is under way: that one schedules the next when it ends. */
	#flush(): void {
		clearTimeout(this.#timer);
		this.#timer = undefined;
		if (this.#sending) return;
		this.#encodeEnded();
		const batch = this.#batches.shift();
		if (!batch) return;
		this.#queued -= batch.spans;
		batch.bytes += batch.body.write(TAIL, batch.bytes);
		this.#sending = this.#send(batch.body.subarray(0, batch.bytes)).then(() => {
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
	json += `,"startTimeUnixNano":"${unixNano(span.startTime)}","endTimeUnixNano":"${unixNano(span.endTime!)}"`;
	let attributes = '';
	for (const key in span.attributes) {
		const value = span.attributes[key];
		if (value !== undefined) attributes += `${attributes ? ',' : ''}${attributeJson(key, value)}`;
	}
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
