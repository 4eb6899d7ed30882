import fc from 'fast-check';
import { RingReader, RingWriter, spanRing } from '../../server/src/observability/span-ring.ts';

// One thread writes records, another reads them: in order, whole, around the ring's end, and a
// record with no room is dropped, never half written.
it('reads back every record it had room for, in order, whatever their sizes', () => {
	const steps = fc.array(
		fc.oneof(
			fc.record({ write: fc.integer({ min: 0, max: 300 }) }),
			fc.record({ read: fc.integer({ min: 1, max: 5 }) }),
		),
		{ maxLength: 200 },
	);
	fc.assert(
		fc.property(steps, (plan) => {
			const ring = spanRing(512);
			const writer = new RingWriter(ring);
			const reader = new RingReader(ring);
			const read = () => {
				const length = reader.read();
				return length < 0 ? undefined : Buffer.from(reader.record.subarray(0, length));
			};
			const waiting: Buffer[] = [];
			let used = 0;
			let next = 0;
			for (const step of plan) {
				if ('write' in step) {
					const record = Buffer.alloc(step.write + 10, next++ % 251);
					const fits = used + 4 + step.write <= 511;
					expect(writer.write(record, step.write)).toBe(fits);
					if (fits) {
						waiting.push(record.subarray(0, step.write));
						used += 4 + step.write;
					}
				} else
					for (let count = 0; count < step.read; count++) {
						const expected = waiting.shift();
						expect(read()).toEqual(expected);
						if (expected) used -= 4 + expected.length;
					}
			}
			for (const expected of waiting) expect(read()).toEqual(expected);
			expect(read()).toBeUndefined();
		}),
	);
});

it('counts the records it dropped', () => {
	const ring = spanRing(100);
	const writer = new RingWriter(ring);
	expect(writer.write(Buffer.alloc(90), 90)).toBe(true);
	expect(writer.write(Buffer.alloc(10), 10)).toBe(false);
	expect(writer.write(Buffer.alloc(1), 1)).toBe(true);
	expect(writer.dropped).toBe(1);
	// The reading end takes the count from the same memory, once.
	const reader = new RingReader(ring);
	expect(reader.takeDropped()).toBe(1);
	expect(reader.takeDropped()).toBe(0);
	expect(writer.write(Buffer.alloc(200), 200)).toBe(false);
	expect(reader.takeDropped()).toBe(1);
	// A reader that takes over (the span export thread started again) counts only what is new.
	expect(writer.write(Buffer.alloc(200), 200)).toBe(false);
	const next = new RingReader(ring);
	expect(next.takeDropped()).toBe(1);
	expect(next.takeDropped()).toBe(0);
});
