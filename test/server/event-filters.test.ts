import { createOrg, sessionInput, type TestOrg } from '../support/fixtures.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { nextLink } from '../../tooling/api/client.ts';

let server: TestServer;
let org: TestOrg;
/** The organization's whole log, newest first, as the unfiltered list gives it. */
let all: Array<{ id: string; type: string; occurred_at: string }>;

beforeAll(async () => {
	server = await startTestServer();
	org = await createOrg(server);
	for (let i = 0; i < 5; i++) {
		await org.admin.post('/labs', { name: `Lab ${i}`, tier: 'vm' });
		await org.trainer.post('/sessions', sessionInput(org, { title: `Session ${i}` }));
		await org.trainer.post('/sessions', sessionInput(org, { title: `Session ${i}b` }));
	}
	await org.admin.post(`/orgs/${org.id}/members`, {
		email: 'late@x.test',
		name: 'L',
		role: 'trainer',
	});
	all = (await org.admin.getAll(`/orgs/${org.id}/events?limit=200`)).items;
});
afterAll(() => server.stop());

const eventsPath = (query: string) => `/orgs/${org.id}/events?${query}`;

describe('the activity log, filtered', () => {
	it('lists only the types asked for, repeated or separated by commas, newest first', async () => {
		const labs = all.filter((event) => event.type === 'lab.created');
		expect(labs.length).toBeGreaterThanOrEqual(5);
		expect((await org.admin.get(eventsPath('types=lab.created&limit=200'))).body).toEqual(labs);

		const either = all.filter((e) => e.type === 'lab.created' || e.type === 'member.added');
		for (const query of ['types=lab.created&types=member.added', 'types=member.added,lab.created'])
			expect((await org.admin.get(eventsPath(`${query}&limit=200`))).body).toEqual(either);
	});

	it('keeps the filters on every page the Link header leads to', async () => {
		const sessions = all.filter((event) => event.type === 'session.created');
		expect(sessions.length).toBe(10);
		const first = await org.admin.get(eventsPath('types=session.created&limit=3'));
		const next = nextLink(first.headers)!;
		expect(new URL(next).searchParams.getAll('types')).toEqual(['session.created']);
		const { items, pages } = await org.admin.getAll(eventsPath('types=session.created&limit=3'));
		expect(pages).toBe(4);
		expect(items).toEqual(sessions);
	});

	it('lists the events at or after since and before until', async () => {
		const since = all[8].occurred_at;
		const until = all[2].occurred_at;
		const expected = all.filter((e) => e.occurred_at >= since && e.occurred_at < until);
		expect(expected.length).toBeGreaterThan(0);
		const { items } = await org.admin.getAll(eventsPath(`since=${since}&until=${until}&limit=2`));
		expect(items).toEqual(expected);
		const { items: sessionsSince } = await org.admin.getAll(
			eventsPath(`types=session.created&since=${encodeURIComponent(since.replace('Z', '+00:00'))}`),
		);
		expect(sessionsSince).toEqual(
			all.filter((e) => e.type === 'session.created' && e.occurred_at >= since),
		);
	});

	it('answers 400 naming an unknown type, an empty one, a malformed time or an empty range', async () => {
		const unknown = await org.admin.get(eventsPath('types=member.removed,member.deleted'));
		expect(unknown.status).toBe(400);
		expect(unknown.body.error.code).toBe('validation_failed');
		expect(unknown.body.error.message).toContain('"member.deleted"');
		expect(unknown.body.error.message).toContain('GET /event-types');
		for (const query of ['types=', 'since=yesterday', 'until=2026-13-01T00:00:00Z']) {
			const response = await org.admin.get(eventsPath(query));
			expect({ query, status: response.status }).toEqual({ query, status: 400 });
		}
		const backwards = await org.admin.get(
			eventsPath('since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z'),
		);
		expect(backwards.status).toBe(400);
		expect(backwards.body.error.details[0].path).toBe('until');
	});

	it('refuses a time outside the years 0000–9999 once in UTC, and takes a range that ends at their end', async () => {
		for (const time of [
			'9999-12-31T23:59:59-23:59',
			'0000-01-01T00:00:00+00:01',
			'+010000-01-01T00:00:00Z',
		]) {
			for (const name of ['since', 'until']) {
				const response = await org.admin.get(eventsPath(`${name}=${encodeURIComponent(time)}`));
				expect({
					time,
					name,
					status: response.status,
					path: response.body.error?.details?.[0]?.path,
				}).toEqual({
					time,
					name,
					status: 400,
					path: name,
				});
			}
		}
		const wide = await org.admin.getAll(
			eventsPath(
				`since=0000-01-01T00:00:00Z&until=${encodeURIComponent('9999-12-31T23:59:59.999Z')}&limit=200`,
			),
		);
		expect(wide.items.map((e: { id: string }) => e.id)).toEqual(all.map((e) => e.id));
	});

	it('names a bounded number of unknown types in its answer, however many were sent', async () => {
		const types = Array.from({ length: 2000 }, (_, i) => `u.${i}`).join(','); // 12 KB
		const response = await org.admin.get(eventsPath(`types=${types}`));
		expect(response.status).toBe(400);
		expect(response.body.error.message).toContain('"u.0"');
		expect(response.body.error.message).toContain('(and 1999 more)');
		expect(response.body.error.details).toHaveLength(20);
		expect(response.text.length).toBeLessThan(4000);
		const long = await org.admin.get(eventsPath(`types=${'x'.repeat(5000)}`));
		expect(long.status).toBe(400);
		expect(long.text.length).toBeLessThan(1000);
	});

	it("never lists another organization's events of the type asked for", async () => {
		const other = await createOrg(server);
		await other.admin.post('/labs', { name: 'Elsewhere', tier: 'vm' });
		const labs = (await org.admin.get(eventsPath('types=lab.created&limit=200'))).body;
		expect(labs.map((e: { id: string }) => e.id)).toEqual(
			all.filter((e) => e.type === 'lab.created').map((e) => e.id),
		);
	});

	it('documents the filters in the OpenAPI document', async () => {
		const document = (await org.admin.get('/openapi.json')).body;
		const parameters = document.paths['/orgs/{orgId}/events'].get.parameters;
		const byName = Object.fromEntries(parameters.map((p: any) => [p.name, p]));
		expect(byName.types.schema.items.enum).toContain('member.removed');
		expect(byName.since.schema.format).toBe('date-time');
		expect(byName.until.in).toBe('query');
	});
});
