import { newResourceId } from '../../server/src/lib/resource-id.ts';
import { Uuid } from '../../server/src/schemas/common.ts';
import { createOrg } from '../support/fixtures.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { startTestServer } from '../support/test-server.ts';

/** The Unix milliseconds a version-7 id carries. */
const timeOf = (id: string) => parseInt(id.replaceAll('-', '').slice(0, 12), 16);

describe('resource ids', () => {
	it('are UUIDs of version 7 that the API itself accepts', () => {
		for (let i = 0; i < 1000; i++) {
			const id = newResourceId(Date.now());
			expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
			expect(Uuid.safeParse(id).success).toBe(true);
		}
	});

	it('carry their creation time, so that they sort in the order they were made', () => {
		const start = Date.parse('2026-11-25T04:00:00.000Z');
		const times = Array.from({ length: 500 }, (_, i) => start + i * 7);
		const ids = times.map((time) => newResourceId(time));
		expect([...ids].sort()).toEqual(ids);
		expect(ids.map(timeOf)).toEqual(times);
	});

	it('made in the same millisecond stay unique and unguessable (74 random bits)', () => {
		const ids = Array.from({ length: 20_000 }, () => newResourceId(1_764_043_200_000));
		expect(new Set(ids).size).toBe(ids.length);
		// The random part varies in every position it covers, not just a counter's last digits.
		const randomPart = (id: string) => id.replaceAll('-', '').slice(13);
		for (let position = 0; position < 19; position++)
			expect(new Set(ids.map((id) => randomPart(id)[position])).size).toBeGreaterThan(1);
	});

	it("are made on the server's clock, like every timestamp of the change", async () => {
		const clock = new ManualClock(Date.parse('2031-03-04T05:06:07.089Z'));
		const server = await startTestServer({}, { clock });
		try {
			const org = await createOrg(server);
			const session = (
				await org.admin.post('/sessions', {
					title: 'On the clock',
					lab_version_id: org.publishedVersionId,
					capacity: 5,
				})
			).body;
			expect(timeOf(session.id)).toBe(clock.now());
			expect(session.created_at).toBe('2031-03-04T05:06:07.089Z');
			const [event] = (await org.admin.get(`/orgs/${org.id}/events?limit=1`)).body;
			expect(timeOf(event.id)).toBe(clock.now());
		} finally {
			await server.stop();
		}
	});
});
