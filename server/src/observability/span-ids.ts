import { randomFillSync } from 'node:crypto';
import { TraceFlags, type SpanContext, type TraceState } from '@opentelemetry/api';

/** Bytes of one span's ids: trace id (16), span id (8), parent span id (8, zeros when none). */
const IDS_BYTES = 32;
const TRACE_ID = 0;
const SPAN_ID = 16;
const PARENT_SPAN_ID = 24;
/** Spans' ids are kept in pools of this many bytes: one allocation serves 128 spans. */
const POOL_BYTES = 4096;

let pool = Buffer.allocUnsafeSlow(POOL_BYTES);
let poolView = new DataView(pool.buffer, pool.byteOffset, POOL_BYTES);
let poolAt = POOL_BYTES;

/** Where `length` bytes of `pool` start, a new pool's when this one has no room left. */
function take(length: number): number {
	if (poolAt + length > POOL_BYTES) {
		pool = Buffer.allocUnsafeSlow(POOL_BYTES);
		poolView = new DataView(pool.buffer, pool.byteOffset, POOL_BYTES);
		poolAt = 0;
	}
	const at = poolAt;
	poolAt += length;
	return at;
}

/**
 * Ids are drawn from xorshift128 (Marsaglia, 2003), 32 bits a step, seeded from the operating
 * system's generator once in each thread: they are to be unique, not secret (OpenTelemetry's SDK
 * draws them with `Math.random`, itself an xorshift), and a step here is a few integer operations:
 * `Math.random`'s calls and cache refills cost a request's span about 450 instructions, drawing
 * here about 115 (`npm run bench:instructions`). Drawn from `randomFillSync` they cost the request
 * thread of a running server about 1.4 µs more a request (docs/performance.md).
 */
let x = 0;
let y = 0;
let z = 0;
let w = 0;

/** Starts the generator from `seed` (four 32-bit words, not all zero): a test's known sequence. */
export function seedSpanIds(seed: Uint32Array): void {
	if ((seed[0] | seed[1] | seed[2] | seed[3]) === 0) throw new Error('an all-zero seed');
	[x, y, z, w] = seed;
}

seedSpanIds(randomFillSync(new Uint32Array(4)));

function next32(): number {
	const t = x ^ (x << 11);
	x = y;
	y = z;
	z = w;
	w = w ^ (w >>> 19) ^ t ^ (t >>> 8);
	return w;
}

/**
 * A new id, `length` bytes (a multiple of 4) into `target` at `at` (within it), not all zero (an
 * invalid id). Four bytes a store.
 */
function drawId(target: DataView, at: number, length: number): void {
	let drawn = 0;
	while (drawn === 0)
		for (let index = at; index < at + length; index += 4) {
			const value = next32();
			drawn |= value;
			target.setUint32(index, value);
		}
}

function copy(from: Uint8Array, fromAt: number, length: number, to: Uint8Array, toAt: number) {
	for (let index = 0; index < length; index++) to[toAt + index] = from[fromAt + index];
}

/**
 * A span's ids, kept as bytes and copied as they are into its OTLP span (span-records.ts), and given
 * in hex only when something asks (a `traceparent` to send, a test): most spans are written into
 * their ring and never read in hex, and making and decoding hex cost a request's span more than
 * the rest of its recording.
 */
export class SpanIds implements SpanContext {
	readonly traceFlags: number;
	readonly traceState: TraceState | undefined;
	readonly hasParent: boolean;
	/** Where its bytes are: a pool of them that a new one replaces once used up, never rewritten. */
	readonly #bytes: Buffer;
	readonly #at: number;
	#traceId: string | undefined;
	#spanId: string | undefined;

	private constructor(traceFlags: number, traceState: TraceState | undefined, hasParent: boolean) {
		this.traceFlags = traceFlags;
		this.traceState = traceState;
		this.hasParent = hasParent;
		this.#at = take(IDS_BYTES);
		this.#bytes = pool;
	}

	/** The first span of a new, sampled trace. */
	static root(): SpanIds {
		const ids = new SpanIds(TraceFlags.SAMPLED, undefined, false);
		// Its bytes are in the pool it was just given room in.
		drawId(poolView, ids.#at + TRACE_ID, 16);
		drawId(poolView, ids.#at + SPAN_ID, 8);
		ids.#bytes.fill(0, ids.#at + PARENT_SPAN_ID, ids.#at + IDS_BYTES);
		return ids;
	}

	/**
	 * The ids of a new root span, written into `target` (trace id at `traceIdAt`, span id at
	 * `spanIdAt`, both within it) with no SpanIds made: for a span whose ids nobody asks for before
	 * it is written.
	 */
	static writeRoot(target: DataView, traceIdAt: number, spanIdAt: number): void {
		drawId(target, traceIdAt, 16);
		drawId(target, spanIdAt, 8);
	}

	/** A child of `parent` (valid ids): in its trace, sampled as it is. */
	static childOf(parent: SpanContext): SpanIds {
		const ids = new SpanIds(parent.traceFlags, parent.traceState, true);
		const bytes = ids.#bytes;
		const at = ids.#at;
		if (parent instanceof SpanIds) {
			copy(parent.#bytes, parent.#at + TRACE_ID, 16, bytes, at + TRACE_ID);
			copy(parent.#bytes, parent.#at + SPAN_ID, 8, bytes, at + PARENT_SPAN_ID);
		} else {
			bytes.write(parent.traceId, at + TRACE_ID, 16, 'hex');
			bytes.write(parent.spanId, at + PARENT_SPAN_ID, 8, 'hex');
		}
		drawId(poolView, at + SPAN_ID, 8);
		return ids;
	}

	/** Ids given in hex (valid ones). */
	static of(ids: {
		traceId: string;
		spanId: string;
		parentSpanId?: string;
		traceFlags: number;
		traceState?: TraceState;
	}): SpanIds {
		const made = new SpanIds(ids.traceFlags, ids.traceState, ids.parentSpanId !== undefined);
		const bytes = made.#bytes;
		bytes.write(ids.traceId, made.#at + TRACE_ID, 16, 'hex');
		bytes.write(ids.spanId, made.#at + SPAN_ID, 8, 'hex');
		if (ids.parentSpanId === undefined)
			bytes.fill(0, made.#at + PARENT_SPAN_ID, made.#at + IDS_BYTES);
		else bytes.write(ids.parentSpanId, made.#at + PARENT_SPAN_ID, 8, 'hex');
		return made;
	}

	get traceId(): string {
		return (this.#traceId ??= this.#hex(TRACE_ID, 16));
	}

	get spanId(): string {
		return (this.#spanId ??= this.#hex(SPAN_ID, 8));
	}

	get parentSpanId(): string | undefined {
		return this.hasParent ? this.#hex(PARENT_SPAN_ID, 8) : undefined;
	}

	/** Its trace id's 16 bytes into `target` at `at` (a write past its end is not made). */
	copyTraceId(target: Uint8Array, at: number): void {
		this.#copy(TRACE_ID, 16, target, at);
	}

	/** Its span id's 8 bytes into `target` at `at`. */
	copySpanId(target: Uint8Array, at: number): void {
		this.#copy(SPAN_ID, 8, target, at);
	}

	/** Its parent span id's 8 bytes (zeros when none) into `target` at `at`. */
	copyParentSpanId(target: Uint8Array, at: number): void {
		this.#copy(PARENT_SPAN_ID, 8, target, at);
	}

	#copy(offset: number, length: number, target: Uint8Array, at: number): void {
		copy(this.#bytes, this.#at + offset, length, target, at);
	}

	#hex(offset: number, length: number): string {
		return this.#bytes.toString('hex', this.#at + offset, this.#at + offset + length);
	}
}
