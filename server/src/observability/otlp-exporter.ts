import { otlpHead, recordBytesAt, type OtlpHead } from './otlp-protobuf.ts';
import { SpanBatch } from './span-batch.ts';
import { RingReader } from './span-ring.ts';
import { SpansLost } from './spans-lost.ts';

/**
 * Sends one export (an `ExportTraceServiceRequest` in protobuf) and resolves once it has been
 * sent or given up, to whether the collector took it (a 2xx); it never rejects. The caller reuses
 * `body` once it resolves.
 */
export type SendExport = (body: Buffer) => Promise<boolean>;

/**
 * Spans one export carries: a full batch is sent at once. Each export costs the span export thread
 * a request, whose code, run a few times a second, V8 never optimizes: at 512 spans an export the
 * thread spent 1.3 µs a `GET /me`, at 2,048 0.49, at 8,192 0.25–0.30 (docs/performance.md). During
 * a drain both cores are busy, and that time is taken from deliveries.
 */
const MAX_BATCH = 8192;
/**
 * Room for one batch's spans: a request's span takes about 160 bytes; a batch that fills it is sent
 * early. An OpenTelemetry collector takes up to 20 MiB a request.
 */
const BATCH_BYTES = 4 * 1024 * 1024;
/** Batches sent and kept to be filled again. */
const SPARE_BATCHES = 2;
/**
 * How often the rings are read and what they held is sent: a span is exported within about this
 * long of its end. Not more often: each wake-up of the thread finds its caches cold, and read ten
 * times a second the thread cost about twice as much a request (docs/performance.md).
 */
const EXPORT_EVERY_MS = 1000;

/**
 * Spans to an OpenTelemetry collector in OTLP's protobuf, through `send` (span-export.ts): the
 * export side of traces, on the span export thread or, without one, on the thread that records
 * them. Each thread writes its ended spans into a ring of shared memory (span-records.ts); this
 * reads them once a second into batches, each sent as soon as it is full, and what is left is
 * sent as well, one export at a time. While an export is under way and the next batch is full,
 * spans wait in their ring; a thread whose ring is full drops its new ones. A failed or slow
 * export drops its batch: traces are best effort and never hold up the server.
 */
export class OtlpExporter {
	/** Spans dropped: by their thread's ring, or with an export that failed. */
	readonly lost: SpansLost;
	readonly #send: SendExport;
	readonly #head: OtlpHead;
	#rings: RingReader[] = [];
	/** Rings whose thread is gone: read to their end, then forgotten. */
	readonly #ending = new Set<RingReader>();
	/** The batch spans are written into. */
	#filling: SpanBatch | undefined;
	/** Whether the filling batch is to be sent without waiting to be full: a second has passed. */
	#due = false;
	/** Batches full, oldest first, waiting for their export: at most one of the usual size. */
	readonly #full: SpanBatch[] = [];
	readonly #spare: SpanBatch[] = [];
	/** The export under way: at most one. */
	#sending: Promise<void> | undefined;
	/** Flushes waiting: while there is one, a batch is sent without waiting to be full. */
	#flushes = 0;
	readonly #timer: NodeJS.Timeout;

	constructor(
		send: SendExport,
		{ resource, lost = new SpansLost() }: { resource: Record<string, string>; lost?: SpansLost },
	) {
		this.#send = send;
		this.lost = lost;
		this.#head = otlpHead(resource);
		this.#timer = setInterval(() => {
			this.#due = true;
			this.#pump();
		}, EXPORT_EVERY_MS).unref();
	}

	/**
	 * Exports the spans written into `ring` (span-ring.ts) from now on. Once its thread is gone,
	 * call what this returns: what the ring still holds is exported, and then it is forgotten.
	 */
	read(ring: SharedArrayBuffer): () => void {
		const reader = new RingReader(ring);
		this.#rings.push(reader);
		return () => this.#ending.add(reader);
	}

	/** Sends every span written so far (by the time each ring is read). */
	async flush(): Promise<void> {
		this.#flushes++;
		try {
			this.#pump();
			while (this.#sending) {
				await this.#sending;
				this.#pump();
			}
		} finally {
			this.#flushes--;
		}
	}

	/** Sends what is written so far, and reads no more. */
	async stop(): Promise<void> {
		clearInterval(this.#timer);
		await this.flush();
	}

	/** Reads the rings, and sends a batch if one is due and no export is under way. */
	#pump(): void {
		this.#read();
		if (this.#sending) return;
		const due = (this.#due || this.#flushes > 0) && this.#filling?.spans;
		const batch = this.#full.shift() ?? (due ? this.#filling : undefined);
		if (!batch) {
			this.#due = false;
			return;
		}
		if (batch === this.#filling) {
			this.#filling = undefined;
			this.#due = false;
		}
		this.#sending = this.#send(batch.finish()).then((sent) => {
			if (!sent) this.lost.countExportFailed(batch.spans);
			this.#sending = undefined;
			batch.reset();
			if (batch.capacity === BATCH_BYTES && this.#spare.length < SPARE_BATCHES)
				this.#spare.push(batch);
			this.#pump();
		});
	}

	/** Takes the spans waiting in the rings into batches, until a full one waits for its export. */
	#read(): void {
		for (const ring of this.#rings) {
			this.lost.countRingFull(ring.takeDropped());
			while (this.#full.length === 0) {
				const batch = (this.#filling ??=
					this.#spare.pop() ?? new SpanBatch(this.#head, BATCH_BYTES));
				const tookAll = batch.take(ring, MAX_BATCH);
				if (tookAll && batch.spans < MAX_BATCH) break;
				if (batch.spans === 0) {
					// A span larger than a batch: an export of its own.
					const alone = new SpanBatch(this.#head, recordBytesAt(ring, 0));
					alone.take(ring, 1);
					this.#full.push(alone);
				} else {
					this.#full.push(batch);
					this.#filling = undefined;
				}
			}
		}
		for (const ring of this.#ending)
			if (ring.available() === 0) {
				this.#ending.delete(ring);
				this.#rings = this.#rings.filter((other) => other !== ring);
			}
	}
}
