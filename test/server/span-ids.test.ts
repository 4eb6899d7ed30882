import { isSpanContextValid, TraceFlags } from '@opentelemetry/api';
import { randomFillSync } from 'node:crypto';
import { SpanIds, seedSpanIds } from '../../server/src/observability/span-ids.ts';

/** The bytes a recorded span is written with, in hex: trace id, span id, parent span id. */
function recorded(ids: SpanIds): string {
	const bytes = new Uint8Array(36);
	ids.copyTraceId(bytes, 1);
	ids.copySpanId(bytes, 18);
	ids.copyParentSpanId(bytes, 27);
	expect([bytes[0], bytes[17], bytes[26], bytes[35]]).toEqual([0, 0, 0, 0]);
	const hex = (from: number, length: number) =>
		Buffer.from(bytes.subarray(from, from + length)).toString('hex');
	return `${hex(1, 16)}${hex(18, 8)}${hex(27, 8)}`;
}

it('starts a sampled trace with valid ids, different each time, and no parent', () => {
	const roots = Array.from({ length: 300 }, () => SpanIds.root());
	for (const ids of roots) {
		expect(isSpanContextValid(ids)).toBe(true);
		expect(ids.traceFlags).toBe(TraceFlags.SAMPLED);
		expect([ids.hasParent, ids.parentSpanId]).toEqual([false, undefined]);
		expect(recorded(ids)).toBe(`${ids.traceId}${ids.spanId}${'0'.repeat(16)}`);
	}
	expect(new Set(roots.map((ids) => ids.traceId)).size).toBe(roots.length);
	expect(new Set(roots.map((ids) => ids.spanId)).size).toBe(roots.length);
});

it("continues its parent's trace, whether the parent is the server's own or a caller's", () => {
	const request = SpanIds.root();
	const event = SpanIds.childOf(request);
	expect([event.traceId, event.parentSpanId, event.hasParent]).toEqual([
		request.traceId,
		request.spanId,
		true,
	]);
	expect(event.spanId).not.toBe(request.spanId);
	expect(recorded(event)).toBe(`${request.traceId}${event.spanId}${request.spanId}`);

	const caller = {
		traceId: '0AF7651916CD43DD8448EB211C80319C',
		spanId: 'b7ad6b7169203331',
		traceFlags: TraceFlags.NONE,
		isRemote: true,
	};
	const served = SpanIds.childOf(caller);
	expect([served.traceId, served.parentSpanId, served.traceFlags]).toEqual([
		caller.traceId.toLowerCase(),
		caller.spanId,
		TraceFlags.NONE,
	]);
	expect(isSpanContextValid(served)).toBe(true);
});

it('keeps ids given in hex, with or without a parent', () => {
	const given = {
		traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
		spanId: '00f067aa0ba902b7',
		traceFlags: TraceFlags.SAMPLED,
	};
	expect(recorded(SpanIds.of({ ...given, parentSpanId: 'b7ad6b7169203331' }))).toBe(
		`${given.traceId}${given.spanId}b7ad6b7169203331`,
	);
	const orphan = SpanIds.of(given);
	expect([orphan.traceId, orphan.spanId, orphan.parentSpanId]).toEqual([
		given.traceId,
		given.spanId,
		undefined,
	]);
	expect(recorded(orphan)).toBe(`${given.traceId}${given.spanId}${'0'.repeat(16)}`);
});

it('writes the ids of new root spans into bytes, valid and different each time, touching nothing else', () => {
	const written = Array.from({ length: 300 }, () => {
		const bytes = new Uint8Array(28).fill(0xee);
		SpanIds.writeRoot(new DataView(bytes.buffer), 1, 19);
		expect([bytes[0], bytes[17], bytes[18], bytes[27]]).toEqual([0xee, 0xee, 0xee, 0xee]);
		const hex = (from: number, length: number) =>
			Buffer.from(bytes.subarray(from, from + length)).toString('hex');
		const ids = { traceId: hex(1, 16), spanId: hex(19, 8), traceFlags: TraceFlags.SAMPLED };
		expect(isSpanContextValid(ids)).toBe(true);
		return ids;
	});
	expect(new Set(written.map((ids) => ids.traceId)).size).toBe(written.length);
	expect(new Set(written.map((ids) => ids.spanId)).size).toBe(written.length);
});

it('draws again an id that came out all zeros, which W3C trace context calls invalid', () => {
	const request = SpanIds.root();
	try {
		// From this state the generator's first two steps give 0, then 0x809 twice (xorshift128).
		seedSpanIds(Uint32Array.of(0, 0, 1, 0));
		const child = SpanIds.childOf(request);
		expect(child.spanId).toBe('0000080900000809');
		expect(isSpanContextValid(child)).toBe(true);
	} finally {
		seedSpanIds(randomFillSync(new Uint32Array(4)));
	}
	expect(() => seedSpanIds(new Uint32Array(4))).toThrow('an all-zero seed');
});

it('draws again the span id of a new root span, written into bytes, that came out all zeros', () => {
	const bytes = new Uint8Array(24);
	try {
		// From this state the generator gives 0, 0, 1, 0 (the trace id), 0, 0, then 0x809 twice.
		seedSpanIds(Uint32Array.of(0x12424041, 0, 0x400801, 0x400801));
		SpanIds.writeRoot(new DataView(bytes.buffer), 0, 16);
	} finally {
		seedSpanIds(randomFillSync(new Uint32Array(4)));
	}
	const hex = Buffer.from(bytes).toString('hex');
	expect([hex.slice(0, 32), hex.slice(32)]).toEqual([
		'00000000000000000000000100000000',
		'0000080900000809',
	]);
});
