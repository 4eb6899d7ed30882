/**
 * Bytes of spans one thread may have waiting for the export side, which reads them once a second:
 * about 90,000 request spans, several seconds of the most either thread ends.
 */
export const RING_BYTES = 16 * 1024 * 1024;

/**
 * Bytes kept beside the ring for byte strings that its records name by number, each written once
 * and kept for the ring's life (request-rows.ts: the fields a request span's method, route and
 * status make): room for several thousand.
 */
export const DEFINED_BYTES = 1024 * 1024;

const WRITTEN = 0;
const READ = 1;
/** Spans the writer had no room for, modulo 2^32. */
const DROPPED = 2;
/**
 * Of those, how many the export side has counted: kept with the ring, so that a reader that takes
 * over from one whose thread died counts each once.
 */
const DROPPED_COUNTED = 3;
/** The ring's size in bytes, set as it is made. */
const SIZE = 4;
/** Bytes of defined strings written, and how many strings they are. */
const DEFINED_END = 5;
const DEFINED_COUNT = 6;
/** The positions, counts and sizes, in front of the ring's bytes. */
const HEADER_BYTES = 32;
/** A defined string's length goes in front of it, in two bytes. */
const DEFINED_LENGTH_BYTES = 2;

/**
 * Shared memory that one thread writes ended spans into and the export side reads them from, in
 * order: a ring of bytes, which the writer appends whole records of spans to (their framing is
 * theirs: otlp-protobuf.ts), and beside it the byte strings those records name by number, each
 * written once. The writer never waits: spans that do not fit are dropped. Positions are stored
 * with Atomics, after the bytes they cover, so that the reader only ever sees whole records.
 */
export function spanRing(bytes = RING_BYTES, definedBytes = DEFINED_BYTES): SharedArrayBuffer {
	const memory = new SharedArrayBuffer(HEADER_BYTES + bytes + definedBytes);
	new Int32Array(memory, 0, HEADER_BYTES / 4)[SIZE] = bytes;
	return memory;
}

abstract class RingEnd {
	protected readonly positions: Int32Array;
	protected readonly data: Buffer;
	/** The defined strings, one after the other, each behind its length. */
	protected readonly defined: Buffer;

	constructor(memory: SharedArrayBuffer) {
		this.positions = new Int32Array(memory, 0, HEADER_BYTES / 4);
		const size = this.positions[SIZE];
		this.data = Buffer.from(memory, HEADER_BYTES, size);
		this.defined = Buffer.from(memory, HEADER_BYTES + size);
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

	/**
	 * Keeps `bytes` for the ring's life, for records written after to name by the number this
	 * returns (0, 1, …), or -1 when there is no room left for them.
	 */
	define(bytes: Buffer): number {
		const end = Atomics.load(this.positions, DEFINED_END);
		const stored = DEFINED_LENGTH_BYTES + bytes.length;
		if (bytes.length > 0xffff || end + stored > this.defined.length) return -1;
		this.defined.writeUInt16LE(bytes.length, end);
		bytes.copy(this.defined, end + DEFINED_LENGTH_BYTES);
		// Stored after the bytes: a reader that sees a record naming them sees them whole.
		Atomics.store(this.positions, DEFINED_END, end + stored);
		return Atomics.add(this.positions, DEFINED_COUNT, 1);
	}
}

/** The reading end: the export side's. */
export class RingReader extends RingEnd {
	/** The defined strings read so far, by number. */
	readonly #definitions: Buffer[] = [];
	#definedRead = 0;

	/** The bytes the writer defined as number `id`, or undefined if it defined none so. */
	definition(id: number): Buffer | undefined {
		const end = Atomics.load(this.positions, DEFINED_END);
		while (this.#definitions.length <= id && this.#definedRead < end) {
			const length = this.defined.readUInt16LE(this.#definedRead);
			const from = this.#definedRead + DEFINED_LENGTH_BYTES;
			this.#definitions.push(this.defined.subarray(from, from + length));
			this.#definedRead = from + length;
		}
		return this.#definitions[id];
	}

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
		this.peek(target, at, 0, length);
		this.skip(length);
	}

	/** Copies `length` bytes from `offset` bytes past the first one not yet read into `target` at `at`. */
	peek(target: Buffer, at: number, offset: number, length: number): void {
		const size = this.data.length;
		const from = (Atomics.load(this.positions, READ) + offset) % size;
		const first = Math.min(length, size - from);
		this.data.copy(target, at, from, from + first);
		if (first < length) this.data.copy(target, at + first, 0, length - first);
	}

	/** Frees the first `length` bytes not yet read for the writer. */
	skip(length: number): void {
		const read = Atomics.load(this.positions, READ);
		Atomics.store(this.positions, READ, (read + length) % this.data.length);
	}
}
