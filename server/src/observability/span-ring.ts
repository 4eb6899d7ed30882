/**
 * Bytes of spans one thread may have waiting for the export side, which reads them once a second:
 * about 80,000 request spans, several seconds of the most either thread ends.
 */
export const RING_BYTES = 8 * 1024 * 1024;

const WRITTEN = 0;
const READ = 1;
/** Records the writer had no room for, modulo 2^32. */
const DROPPED = 2;
/**
 * Of those, how many the export side has counted: kept with the ring, so that a reader that takes
 * over from one whose thread died counts each once.
 */
const DROPPED_COUNTED = 3;
/** The positions and the counts of dropped records, in front of the ring's bytes. */
const HEADER_BYTES = 16;
/** Each record's length, in front of it. */
const LENGTH_BYTES = 4;

/**
 * Shared memory that one thread writes ended spans into and the export side reads them from, in
 * order: a ring of records, each its length and its bytes. The writer never waits: a record that
 * does not fit is dropped. Positions are stored with Atomics, after the bytes they cover.
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

	/** Copies `length` bytes between `buffer` (from 0) and the ring at `at`, around its end. */
	protected copy(toRing: boolean, buffer: Buffer, at: number, length: number): number {
		const size = this.data.length;
		const first = Math.min(length, size - at);
		if (toRing) {
			buffer.copy(this.data, at, 0, first);
			if (first < length) buffer.copy(this.data, 0, first, length);
		} else {
			this.data.copy(buffer, 0, at, at + first);
			if (first < length) this.data.copy(buffer, first, 0, length - first);
		}
		return (at + length) % size;
	}

	/** The uint32 (little-endian) at `at`, around the ring's end; a byte at a time, cheaper than a copy. */
	protected lengthAt(at: number): number {
		const { data } = this;
		const size = data.length;
		return (
			(data[at] |
				(data[(at + 1) % size] << 8) |
				(data[(at + 2) % size] << 16) |
				(data[(at + 3) % size] << 24)) >>>
			0
		);
	}

	/** Writes `length` as a uint32 (little-endian) at `at`, around the ring's end. */
	protected writeLength(at: number, length: number): void {
		const { data } = this;
		const size = data.length;
		data[at] = length;
		data[(at + 1) % size] = length >>> 8;
		data[(at + 2) % size] = length >>> 16;
		data[(at + 3) % size] = length >>> 24;
	}
}

/** The writing end: one thread's. */
export class RingWriter extends RingEnd {
	/** Records dropped because the ring was full (the reader counts them too: `takeDropped`). */
	get dropped(): number {
		return Atomics.load(this.positions, DROPPED) >>> 0;
	}

	/** Appends `record`'s first `length` bytes; false, with nothing written, when they do not fit. */
	write(record: Buffer, length: number): boolean {
		const size = this.data.length;
		const written = Atomics.load(this.positions, WRITTEN);
		const free = (Atomics.load(this.positions, READ) - written - 1 + size) % size;
		if (LENGTH_BYTES + length > free) {
			Atomics.add(this.positions, DROPPED, 1);
			return false;
		}
		this.writeLength(written, length);
		const at = (written + LENGTH_BYTES) % size;
		Atomics.store(this.positions, WRITTEN, this.copy(true, record, at, length));
		return true;
	}
}

/** The reading end: the export side's. */
export class RingReader extends RingEnd {
	/** The record last read, from its first byte (its length is what `read` returned). */
	record = Buffer.alloc(64 * 1024);

	/** How many records the writer has dropped since this ring's reader (this one or an earlier) last asked. */
	takeDropped(): number {
		const dropped = Atomics.load(this.positions, DROPPED);
		return (dropped - Atomics.exchange(this.positions, DROPPED_COUNTED, dropped)) >>> 0;
	}

	/**
	 * Reads the oldest record not yet read into `record` (valid until the next call), and returns
	 * its length; -1 when there is none. Nothing is allocated for it.
	 */
	read(): number {
		const read = Atomics.load(this.positions, READ);
		if (read === Atomics.load(this.positions, WRITTEN)) return -1;
		const length = this.lengthAt(read);
		const at = (read + LENGTH_BYTES) % this.data.length;
		if (length > this.record.length) this.record = Buffer.alloc(length);
		Atomics.store(this.positions, READ, this.copy(false, this.record, at, length));
		return length;
	}
}
