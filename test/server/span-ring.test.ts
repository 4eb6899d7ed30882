import fc from 'fast-check';
import { RingReader, RingWriter, spanRing } from '../../server/src/observability/span-ring.ts';

// One thread appends spans' bytes, another takes them: in order, whole, around the ring's end, and
// what has no room is dropped, never half written.
it('gives back every write it had room for, in order, whatever their sizes', () => {
	const steps = fc.array(
		fc.oneof(
			fc.record({ write: fc.integer({ min: 0, max: 300 }), from: fc.integer({ min: 0, max: 9 }) }),
			fc.record({ take: fc.integer({ min: 0, max: 400 }) }),
		),
		{ maxLength: 200 },
	);
	fc.assert(
		fc.property(steps, (plan) => {
			const ring = spanRing(512);
			const writer = new RingWriter(ring);
			const reader = new RingReader(ring);
			let waiting = Buffer.alloc(0);
			let next = 0;
			let dropped = 0;
			for (const step of plan) {
				if ('write' in step) {
					const source = Buffer.alloc(step.write + 10);
					for (let index = 0; index < source.length; index++) source[index] = next++ % 251;
					const fits = waiting.length + step.write <= 511;
					expect(writer.free()).toBe(511 - waiting.length);
					expect(writer.write(source, step.from, step.write, 3)).toBe(fits);
					if (fits)
						waiting = Buffer.concat([waiting, source.subarray(step.from, step.from + step.write)]);
					else dropped += 3;
				} else {
					const length = Math.min(step.take, waiting.length);
					expect(reader.available()).toBe(waiting.length);
					if (length > 0) expect(reader.byteAt(length - 1)).toBe(waiting[length - 1]);
					const target = Buffer.alloc(length + 2, 0xff);
					reader.take(target, 1, length);
					expect(target.subarray(1, 1 + length)).toEqual(waiting.subarray(0, length));
					expect([target[0], target[length + 1]]).toEqual([0xff, 0xff]);
					waiting = waiting.subarray(length);
				}
			}
			expect(reader.available()).toBe(waiting.length);
			expect(writer.dropped).toBe(dropped);
		}),
	);
});

it('counts the spans it dropped', () => {
	const ring = spanRing(100);
	const writer = new RingWriter(ring);
	expect(writer.write(Buffer.alloc(90), 0, 90, 1)).toBe(true);
	expect(writer.write(Buffer.alloc(10), 0, 10, 2)).toBe(false);
	expect(writer.write(Buffer.alloc(1), 0, 1, 1)).toBe(true);
	expect(writer.dropped).toBe(2);
	// The reading end takes the count from the same memory, once.
	const reader = new RingReader(ring);
	expect(reader.takeDropped()).toBe(2);
	expect(reader.takeDropped()).toBe(0);
	expect(writer.write(Buffer.alloc(200), 0, 200, 1)).toBe(false);
	expect(reader.takeDropped()).toBe(1);
	// A reader that takes over (the span export thread started again) counts only what is new.
	expect(writer.write(Buffer.alloc(200), 0, 200, 1)).toBe(false);
	const next = new RingReader(ring);
	expect(next.takeDropped()).toBe(1);
	expect(next.takeDropped()).toBe(0);
});

it('keeps each string defined beside the ring, by its number, for every reader, while there is room', () => {
	const ring = spanRing(64, 40);
	const writer = new RingWriter(ring);
	const reader = new RingReader(ring);
	expect(writer.define(Buffer.from('first'))).toBe(0);
	expect(reader.definition(0)?.toString()).toBe('first');
	expect(reader.definition(1)).toBeUndefined();
	expect(writer.define(Buffer.from('a longer second'))).toBe(1);
	// Each takes two bytes more than itself: 7 and 17 of 40 taken, no room for 22.
	expect(writer.define(Buffer.alloc(20))).toBe(-1);
	expect(writer.define(Buffer.from('third'))).toBe(2);
	// The ring's own bytes, written to the full, leave them as they are.
	expect(writer.write(Buffer.alloc(63, 0xee), 0, 63, 1)).toBe(true);
	const next = new RingReader(ring);
	expect([0, 1, 2, 3].map((id) => next.definition(id)?.toString())).toEqual([
		'first',
		'a longer second',
		'third',
		undefined,
	]);
	expect(reader.definition(2)?.toString()).toBe('third');
});
