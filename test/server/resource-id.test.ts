import { newResourceId } from '../../server/src/lib/resource-id.ts';
import { Uuid } from '../../server/src/schemas/common.ts';

describe('resource ids', () => {
	it('are UUIDs of version 7 that the API itself accepts', () => {
		for (let i = 0; i < 1000; i++) {
			const id = newResourceId();
			expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
			expect(Uuid.safeParse(id).success).toBe(true);
		}
	});

	it('carry their creation time, so that they sort in the order they were made', () => {
		const start = Date.parse('2026-11-25T04:00:00.000Z');
		const times = Array.from({ length: 500 }, (_, i) => start + i * 7);
		const ids = times.map((time) => newResourceId(time));
		expect([...ids].sort()).toEqual(ids);
		expect(ids.map((id) => parseInt(id.replaceAll('-', '').slice(0, 12), 16))).toEqual(times);
	});

	it('made in the same millisecond stay unique and unguessable (74 random bits)', () => {
		const ids = Array.from({ length: 20_000 }, () => newResourceId(1_764_043_200_000));
		expect(new Set(ids).size).toBe(ids.length);
		// The random part varies in every position it covers, not just a counter's last digits.
		const randomPart = (id: string) => id.replaceAll('-', '').slice(13);
		for (let position = 0; position < 19; position++)
			expect(new Set(ids.map((id) => randomPart(id)[position])).size).toBeGreaterThan(1);
	});
});
