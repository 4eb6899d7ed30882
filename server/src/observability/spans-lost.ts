const RING_FULL = 0;
const EXPORT_FAILED = 1;

/**
 * Spans that never reached the collector, by why, counted by the export side (otlp-exporter.ts) in
 * shared memory: the thread that serves `/metrics` reads what the span export thread counts.
 */
export class SpansLost {
	readonly memory: SharedArrayBuffer;
	readonly #counts: BigInt64Array;

	constructor(memory = new SharedArrayBuffer(2 * BigInt64Array.BYTES_PER_ELEMENT)) {
		this.memory = memory;
		this.#counts = new BigInt64Array(memory);
	}

	/** Spans a thread's ring had no room for: the export side behind, or a span larger than a ring. */
	get ringFull(): number {
		return Number(Atomics.load(this.#counts, RING_FULL));
	}

	/** Spans of exports that the collector refused, or did not answer in time. */
	get exportFailed(): number {
		return Number(Atomics.load(this.#counts, EXPORT_FAILED));
	}

	countRingFull(spans: number): void {
		if (spans > 0) Atomics.add(this.#counts, RING_FULL, BigInt(spans));
	}

	countExportFailed(spans: number): void {
		if (spans > 0) Atomics.add(this.#counts, EXPORT_FAILED, BigInt(spans));
	}
}
