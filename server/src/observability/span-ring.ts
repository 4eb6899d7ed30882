/**
 * Bytes of spans one thread may have waiting for the export side, which reads them once a second:
 * about 90,000 request spans, several seconds of the most either thread ends.
 */
export const RING_BYTES = 16 * 1024 * 1024;

const WRITTEN = 0;
const READ = 1;
/** Spans the writer had no room for, modulo 2^32. */
const DROPPED = 2;
/**
 * Of those, how many the export side has counted: kept with the ring, so that a reader that takes
 * over from one whose thread died counts each once.
 */
const DROPPED_COUNTED = 3;
/** The positions and the counts of dropped spans, in front of the ring's bytes. */
const HEADER_BYTES = 16;

/**
 * Shared memory that one thread writes ended spans into and the export side reads them from, in
 * order: a ring of bytes, which the writer appends whole spans to (their framing is theirs:
 * otlp-protobuf.ts). The writer never waits: spans that do not fit are dropped. Positions are
 * stored with Atomics, after the bytes they cover, so that the reader only ever sees whole spans.
 */
export function spanRing(bytes = RING_BYTES): SharedArrayBuffer {
	return new SharedArrayBuffer(HEADER_BYTES + bytes);
}

abstract class RingEnd {
	protected readonly positions: Int32Array;
	protected readonly data: Buffer;

	constructor(memory: SharedArrayBuffer) {
		this.positions = new Int32Array(memory, 0, HEADER_BYTES / 4);
		this.data = Buffer.from(memory, HEADER_BYTES);
	}
}

/** The writing end: one thread's. */
export class RingWriter extends RingEnd {
	/** Spans dropped because the ring was full (the reader counts them too: `takeDropped`). */
	get dropped(): number {
		return Atomics.load(this.positions, DROPPED) >>> 0;
	}

	/** Bytes it has room for now: only the reader changes it, to more. */
	free(): number {
		const size = this.data.length;
		return (
			(Atomics.load(this.positions, READ) - Atomics.load(this.positions, WRITTEN) - 1 + size) % size
		);
	}

	/**
	 * Appends `length` bytes of `source` from `from`, which hold `spans` whole spans; false, with
	 * nothing written and the spans counted as dropped, when they do not fit.
	 */
	write(source: Buffer, from: number, length: number, spans: number): boolean {
		if (length > this.free()) {
			Atomics.add(this.positions, DROPPED, spans);
			return false;
		}
		const size = this.data.length;
		const written = Atomics.load(this.positions, WRITTEN);
		const first = Math.min(length, size - written);
		source.copy(this.data, written, from, from + first);
		if (first < length) source.copy(this.data, 0, from + first, from + length);
		Atomics.store(this.positions, WRITTEN, (written + length) % size);
		return true;
	}
}

/** The reading end: the export side's. */
export class RingReader extends RingEnd {
	/** How many spans the writer has dropped since this ring's reader (this one or an earlier) last asked. */
	takeDropped(): number {
		const dropped = Atomics.load(this.positions, DROPPED);
		return (dropped - Atomics.exchange(this.positions, DROPPED_COUNTED, dropped)) >>> 0;
	}

	/** Bytes written and not yet read: whole spans. */
	available(): number {
		const size = this.data.length;
		return (
			(Atomics.load(this.positions, WRITTEN) - Atomics.load(this.positions, READ) + size) % size
		);
	}

	/** The byte `offset` bytes past the first one not yet read (less than `available()`). */
	byteAt(offset: number): number {
		return this.data[(Atomics.load(this.positions, READ) + offset) % this.data.length];
	}

	/** Copies the first `length` bytes not yet read into `target` at `at`, and frees them for the writer. */
	take(target: Buffer, at: number, length: number): void {
		const size = this.data.length;
		const read = Atomics.load(this.positions, READ);
		const first = Math.min(length, size - read);
		this.data.copy(target, at, read, read + first);
		if (first < length) this.data.copy(target, at + first, 0, length - first);
		Atomics.store(this.positions, READ, (read + length) % size);
	}
}
