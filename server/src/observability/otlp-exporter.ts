import { otlpHead, SpanBatch, type OtlpHead } from './otlp-protobuf.ts';
import type { RecordedSpan, SpanSink } from './recorded-span.ts';
import type { SendExport } from './span-export.ts';

/** Spans kept while an export is under way or the collector is slow: past it, new ones are dropped. */
const MAX_QUEUED = 8192;
/**
 * Spans one export carries: a full batch is sent at once. Each export costs the span export thread
 * and the collector a request: at 512 spans an export they spent 1.3 and 0.8 µs a `GET /me`, at
 * 2,048 0.4 and 0.6. During a drain both cores are busy, and that time is taken from deliveries.
 */
const MAX_BATCH = 2048;
/**
 * Ended spans are written this many at a time, in one loop: written one by one as each request
 * ends, between two requests' work, the writing code and its data are out of the CPU's caches
 * each time, and a span cost the server nearly three times as much (2.6 µs against 0.9).
 */
const WRITE_EVERY = 64;
/** Room for one batch's spans: a request's span takes about 200 bytes; a batch that fills it is sent early. */
const BATCH_BYTES = 1024 * 1024;
/** A span larger than a batch gets an export of its own, up to this size; a larger one is dropped. */
const MAX_SPAN_BYTES = 16 * 1024 * 1024;
/** Batches sent and kept to be filled again. */
const SPARE_BATCHES = 2;
/** A span of a batch not yet full is exported within about this long of its end. */
const EXPORT_EVERY_MS = 1000;

/**
 * Spans to an OpenTelemetry collector in OTLP's protobuf, through `send` (span-export.ts: over
 * HTTP from this thread, or from the span export thread): a batch as soon as it is full, or a
 * second after its first span, one export at a time. A failed or slow export drops its batch:
 * traces are best effort and never hold up the server.
 * Spans are written into their batch's body (otlp-protobuf.ts) 64 at a time, on the thread that
 * ended them; the bodies are shared memory outside V8's heap, reused from one export to the next.
 */
export class OtlpExporter implements SpanSink {
	readonly #send: SendExport;
	readonly #head: OtlpHead;
	/** Spans ended and not yet written: fewer than WRITE_EVERY. */
	readonly #ended: RecordedSpan[] = [];
	/** The batch ended spans are written into. */
	#filling: SpanBatch | undefined;
	/** Batches full, oldest first, waiting for their export. */
	readonly #waiting: SpanBatch[] = [];
	readonly #spare: SpanBatch[] = [];
	/** Spans taken and not yet handed to an export. */
	#queued = 0;
	#timer: NodeJS.Timeout | undefined;
	/** The export under way: at most one. */
	#sending: Promise<void> | undefined;
	#closing = false;

	constructor(send: SendExport, serviceName: string) {
		this.#send = send;
		this.#head = otlpHead(serviceName);
	}

	add(span: RecordedSpan): void {
		if (this.#closing || this.#queued >= MAX_QUEUED) return;
		this.#queued++;
		if (this.#ended.push(span) === WRITE_EVERY) this.#writeEnded();
		if (this.#waiting.length > 0) this.#flush();
		else this.#flushWithinASecond();
	}

	/** Sends what is queued, then stops taking spans. */
	async shutdown(): Promise<void> {
		this.#closing = true;
		this.#schedule();
		while (this.#sending) await this.#sending;
	}

	/** Writes the spans ended so far into their batches. */
	#writeEnded(): void {
		const ended = this.#ended;
		for (let index = 0; index < ended.length; index++)
			if (!this.#write(ended[index])) this.#queued--;
		ended.length = 0;
	}

	/** Writes `span` into the filling batch, which waits for its export once full; false if dropped. */
	#write(span: RecordedSpan): boolean {
		let batch = (this.#filling ??= this.#newBatch());
		if (!batch.add(span)) {
			if (batch.spans === 0) return this.#writeAlone(span);
			this.#waiting.push(batch);
			batch = this.#filling = this.#newBatch();
			if (!batch.add(span)) return this.#writeAlone(span);
		}
		if (batch.spans === MAX_BATCH) {
			this.#waiting.push(batch);
			this.#filling = undefined;
		}
		return true;
	}

	#newBatch(): SpanBatch {
		return this.#spare.pop() ?? new SpanBatch(this.#head, BATCH_BYTES);
	}

	/** A span larger than a batch, in a batch of its own (the filling one is empty). */
	#writeAlone(span: RecordedSpan): boolean {
		for (let bytes = 2 * BATCH_BYTES; bytes <= MAX_SPAN_BYTES; bytes *= 2) {
			const batch = new SpanBatch(this.#head, bytes);
			if (batch.add(span)) {
				this.#waiting.push(batch);
				return true;
			}
		}
		return false;
	}

	/** Waiting batches (or, closing, whatever is queued) now; a partial one a second after its first span. */
	#schedule(): void {
		if (this.#closing) this.#writeEnded();
		if (this.#waiting.length > 0 || (this.#closing && this.#filling?.spans)) this.#flush();
		else if (this.#filling?.spans || this.#ended.length > 0) this.#flushWithinASecond();
	}

	#flushWithinASecond(): void {
		this.#timer ??= setTimeout(() => this.#flush(), EXPORT_EVERY_MS).unref();
	}

	/** Sends the oldest batch, unless an export is under way: that one schedules the next when it ends. */
	#flush(): void {
		clearTimeout(this.#timer);
		this.#timer = undefined;
		if (this.#sending) return;
		this.#writeEnded();
		const batch = this.#waiting.shift() ?? (this.#filling?.spans ? this.#filling : undefined);
		if (!batch) return;
		if (batch === this.#filling) this.#filling = undefined;
		this.#queued -= batch.spans;
		this.#sending = this.#send(batch.finish()).then(() => {
			this.#sending = undefined;
			batch.reset();
			if (batch.capacity === BATCH_BYTES && this.#spare.length < SPARE_BATCHES)
				this.#spare.push(batch);
			this.#schedule();
		});
	}
}
