import { FIRST, recordBytesAt, recordHeadBytes, SECOND, type OtlpHead } from './otlp-protobuf.ts';
import { ProtobufBody, varintSize, writeVarint } from './protobuf-body.ts';
import { ROWS, rowSpansBytes, rowsIn, writeRowSpans } from './request-rows.ts';
import type { RingReader } from './span-ring.ts';

/** Room for one record of rows, read out of its ring: 64 rows take 1,280 bytes. */
const ROWS_RECORD_BYTES = 64 * 1024;

/**
 * One export's spans: taken from a thread's ring as they are, since each thread writes its spans
 * there as fields of OTLP's `ScopeSpans` (span-records.ts), or written here from a record of rows
 * (request-rows.ts); the export's head is written in front of them when it is sent. The body is
 * reused once it has been sent.
 */
export class SpanBatch {
	/** Bytes of spans it holds. */
	readonly capacity: number;
	readonly #head: OtlpHead;
	readonly #out: ProtobufBody;
	/** Where the spans start: the room before them takes the export's head when it is sent. */
	readonly #start: number;
	/** A record of rows being read. */
	readonly #rows = Buffer.allocUnsafe(ROWS_RECORD_BYTES);
	spans = 0;

	constructor(head: OtlpHead, bytes: number) {
		this.#start = head.resource.length + head.scope.length + 2 * (1 + 5);
		this.#out = new ProtobufBody(this.#start + bytes);
		this.#out.at = this.#start;
		this.#head = head;
		this.capacity = bytes;
	}

	/**
	 * Takes whole records from `ring`, up to `maxSpans` spans in all and what it has room for; true
	 * when it took all the ring held.
	 */
	take(ring: RingReader, maxSpans: number): boolean {
		const out = this.#out;
		const available = ring.available();
		/** Bytes of the ring taken, and where its spans not yet copied start. */
		let taken = 0;
		let copyFrom = 0;
		let spans = this.spans;
		const copy = () => {
			ring.peek(out.body, out.at, copyFrom, taken - copyFrom);
			out.at += taken - copyFrom;
			copyFrom = taken;
		};
		while (taken < available && spans < maxSpans) {
			const bytes = recordBytesAt(ring, taken);
			if (ring.byteAt(taken) !== ROWS) {
				if (out.at + (taken - copyFrom) + bytes > out.body.length) break;
				taken += bytes;
				spans++;
				continue;
			}
			copy();
			const headBytes = recordHeadBytes(ring, taken);
			const record = this.#rows.subarray(0, bytes - headBytes);
			ring.peek(record, 0, taken + headBytes, record.length);
			if (
				spans + rowsIn(record) > maxSpans ||
				out.at + rowSpansBytes(record, ring) > out.body.length
			)
				break;
			spans += writeRowSpans(out, record, ring);
			taken += bytes;
			copyFrom = taken;
		}
		copy();
		ring.skip(taken);
		this.spans = spans;
		return taken === available;
	}

	/** The export (`ExportTraceServiceRequest`): the head written in front of the spans. */
	finish(): Buffer {
		const { resource, scope } = this.#head;
		const { body, at } = this.#out;
		const scopeSpans = scope.length + (at - this.#start);
		const resourceSpans = resource.length + 1 + varintSize(scopeSpans) + scopeSpans;
		let from = this.#start - scope.length;
		scope.copy(body, from);
		from -= varintSize(scopeSpans);
		writeVarint(body, from, scopeSpans);
		body[--from] = SECOND;
		from -= resource.length;
		resource.copy(body, from);
		from -= varintSize(resourceSpans);
		writeVarint(body, from, resourceSpans);
		body[--from] = FIRST;
		return body.subarray(from, at);
	}

	/** Empty again, to be filled anew. */
	reset(): void {
		this.#out.at = this.#start;
		this.spans = 0;
	}
}
