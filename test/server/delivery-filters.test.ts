import { nextLink } from '../../tooling/api/client.ts';
import { eventually } from '../../tooling/eventually.ts';
import { serverWithOrg, sessionInput, type TestOrg } from '../support/fixtures.ts';
import { Receiver } from '../support/receiver.ts';
import type { TestServer } from '../support/test-server.ts';

let server: TestServer;
let org: TestOrg;
let receiver: Receiver;
let deliveriesPath: string;
/** Every delivery of the endpoint, newest first, as the unfiltered list gives them. */
let all: Array<{
	id: string;
	status: string;
	event_type: string;
	test: boolean;
	event_occurred_at: string;
}>;

beforeAll(async () => {
	receiver = await Receiver.start();
	// Sessions fail (their next attempt is minutes away); everything else is delivered.
	receiver.reply = (delivery) => ({
		status: JSON.parse(delivery.body).type === 'session.created' ? 500 : 204,
	});
	({ server, org } = await serverWithOrg({ WEBHOOK_ALLOW_INSECURE_URLS: 'true' }));
	const hook = (
		await org.admin.post(`/orgs/${org.id}/webhooks`, {
			url: `${receiver.url}/filters`,
			event_types: ['lab.created', 'session.created', 'member.removed'],
		})
	).body;
	deliveriesPath = `/orgs/${org.id}/webhooks/${hook.id}/deliveries`;
	for (let i = 0; i < 3; i++) {
		await org.admin.post('/labs', { name: `Filtered ${i}`, tier: 'vm' });
		await org.trainer.post('/sessions', sessionInput(org, { title: `Filtered ${i}` }));
	}
	await org.admin.post(`/orgs/${org.id}/webhooks/${hook.id}/test`, {
		event_type: 'member.removed',
	});
	all = await eventually(async () => {
		const { items } = await org.admin.getAll(`${deliveriesPath}?limit=200`);
		return items.length === 7 && items.every((d) => d.status !== 'pending') ? items : undefined;
	}, 'every delivery tried once');
});
afterAll(async () => {
	await server.stop();
	await receiver.stop();
});

const list = async (query: string) => (await org.admin.getAll(`${deliveriesPath}?${query}`)).items;

describe('the deliveries of an endpoint, filtered', () => {
	it('lists only the states asked for', async () => {
		expect(await list('status=failed')).toEqual(all.filter((d) => d.status === 'failed'));
		expect((await list('status=failed')).map((d) => d.event_type)).toEqual([
			'session.created',
			'session.created',
			'session.created',
		]);
		expect(await list('status=succeeded,exhausted')).toEqual(
			all.filter((d) => d.status === 'succeeded'),
		);
	});

	it('lists only the event types asked for, and test or real events', async () => {
		expect(await list('event_type=lab.created')).toEqual(
			all.filter((d) => d.event_type === 'lab.created'),
		);
		expect(await list('test=true')).toEqual(all.filter((d) => d.test));
		expect((await list('test=true')).map((d) => d.event_type)).toEqual(['member.removed']);
		expect(await list('test=false&event_type=member.removed')).toEqual([]);
	});

	it('lists the deliveries of events in a time range, with paging that keeps every filter', async () => {
		const since = all.at(-2)!.event_occurred_at;
		const expected = all.filter((d) => !d.test && d.event_occurred_at >= since);
		const first = await org.admin.get(`${deliveriesPath}?test=false&since=${since}&limit=2`);
		const next = new URL(nextLink(first.headers)!);
		expect(next.searchParams.get('test')).toBe('false');
		expect(next.searchParams.get('since')).toBe(since);
		expect(await list(`test=false&since=${since}&limit=2`)).toEqual(expected);
	});

	it('answers 400 naming an unknown state or type, and a range that ends before it starts', async () => {
		const status = await org.admin.get(`${deliveriesPath}?status=lost`);
		expect(status.status).toBe(400);
		expect(status.body.error.message).toContain('"lost"');
		const type = await org.admin.get(`${deliveriesPath}?event_type=lab.removed`);
		expect(type.status).toBe(400);
		expect(type.body.error.message).toContain('"lab.removed"');
		expect((await org.admin.get(`${deliveriesPath}?test=yes`)).status).toBe(400);
		const backwards = await org.admin.get(
			`${deliveriesPath}?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z`,
		);
		expect(backwards.body.error.details[0].path).toBe('until');
	});
});
