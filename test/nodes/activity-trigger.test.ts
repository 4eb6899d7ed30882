import type { IDataObject } from 'n8n-workflow';
import { Poller } from '../support/poller';
import { removeTrainers, serverWithOrg, type TestOrg } from '../support/fixtures';
import { LossyProxy } from '../support/lossy-proxy';
import type { TestServer } from '../support/test-server';

let server: TestServer;
let org: TestOrg;
beforeAll(async () => {
	({ server, org } = await serverWithOrg({ RATE_LIMIT_REQUESTS: '100000' }));
});
afterAll(() => server.stop());

const admin = () => ({ baseUrl: server.url, apiKey: org.admin.key! });
const adminActor = () => ({
	orgId: org.id,
	userId: org.adminUserId,
	email: `admin@${org.slug}.test`,
	role: 'admin' as const,
});
const createLabs = (count: number, prefix: string) => {
	for (let i = 0; i < count; i++)
		server.services.labs.create(adminActor(), { name: `${prefix} ${i}`, tier: 'vm' });
};
/** The organization's events, oldest first, straight from the database. */
const eventsInLog = (): Array<{ id: string; type: string }> =>
	server.db
		.prepare('SELECT id, type FROM events WHERE org_id = ? ORDER BY seq')
		.all(org.id) as Array<{ id: string; type: string }>;

describe('Training Lab Activity Trigger (polling)', () => {
	it('records where the log stands on the first poll and emits nothing', async () => {
		const poller = new Poller(admin(), { events: ['*'] });
		expect(await poller.poll()).toBeNull();
		expect(poller.staticData.lastEventId).toBe(eventsInLog().at(-1)!.id);
		expect(await poller.poll()).toBeNull();
	});

	it('emits every one of 250 events created between two polls (several pages), oldest first, none twice', async () => {
		const poller = new Poller(admin(), { events: ['*'] });
		await poller.poll();
		const before = eventsInLog().length;
		createLabs(250, 'Burst');
		const items = (await poller.poll())!;
		const expected = eventsInLog().slice(before);
		expect(expected).toHaveLength(250);
		expect(items.map((item) => item.id)).toEqual(expected.map((event) => event.id));
		expect(items[0]).toEqual({
			id: expected[0].id,
			type: 'lab.created',
			occurred_at: expect.any(String),
			org_id: org.id,
			actor: `admin@${org.slug}.test`,
			data: expect.objectContaining({ name: 'Burst 0', tier: 'vm' }),
		});
		expect(await poller.poll()).toBeNull();
	});

	it('emits only the selected event types, with the fields of the webhook trigger', async () => {
		const poller = new Poller(admin(), { events: ['member.removed'] });
		await poller.poll();
		createLabs(3, 'Unwatched');
		const member = (
			await org.admin.post(`/orgs/${org.id}/members`, {
				email: `leaver-${Date.now()}@x.test`,
				name: 'Leaver',
				role: 'trainer',
			})
		).body;
		await org.admin.delete(`/orgs/${org.id}/members/${member.user_id}`);
		const items = (await poller.poll())!;
		expect(items).toEqual([
			expect.objectContaining({
				type: 'member.removed',
				org_id: org.id,
				data: { user_id: member.user_id, email: member.email, role: 'trainer' },
			}),
		]);
		expect(Object.keys(items[0]).sort()).toEqual([
			'actor',
			'data',
			'id',
			'occurred_at',
			'org_id',
			'type',
		]);
	});

	it('keeps its position when a poll fails, so the next good poll loses nothing', async () => {
		const poller = new Poller(admin(), { events: ['*'] });
		await poller.poll();
		const position = { ...poller.staticData };
		const before = eventsInLog().length;
		createLabs(5, 'While down');
		poller.credentials = { baseUrl: 'http://127.0.0.1:9/api/v1', apiKey: org.admin.key! };
		await expect(poller.poll()).rejects.toThrow();
		expect(poller.staticData).toEqual(position);
		poller.credentials = admin();
		expect((await poller.poll())!.map((item) => item.id)).toEqual(
			eventsInLog()
				.slice(before)
				.map((e) => e.id),
		);
	});

	it('n8n stopped while executions it started ran: the next process starts them again, once; the others it had ended, not', async () => {
		const first = new Poller(admin(), { events: ['*'] });
		await first.poll();
		createLabs(2, 'Ended');
		await first.poll();
		first.endAtOnce = false;
		createLabs(3, 'Running');
		await first.poll(); // still running when n8n dies
		createLabs(1, 'During restart');

		const restarted = first.restarted();
		const names = (items: IDataObject[] | null) =>
			(items ?? []).map((item) => (item.data as IDataObject).name);
		expect(names(await restarted.poll())).toEqual([
			'Running 0',
			'Running 1',
			'Running 2',
			'During restart 0',
		]);
		expect(await restarted.poll()).toBeNull();
		// Their end is stored with the next execution: a later restart starts them not again (only
		// that last one, whose end no execution after it stored).
		createLabs(1, 'Later');
		expect(names(await restarted.poll())).toEqual(['Later 0']);
		expect(names(await restarted.restarted().poll())).toEqual(['Later 0']);
	});

	it('an execution still running in this process is not started twice; one that ended, or could not run, not again', async () => {
		const poller = new Poller(admin(), { events: ['*'] });
		await poller.poll();
		poller.endAtOnce = false;
		createLabs(1, 'Slow');
		await poller.poll();
		createLabs(1, 'Refused');
		await poller.poll();
		expect(await poller.poll()).toBeNull();
		expect(Object.keys(poller.staticData.running as IDataObject)).toHaveLength(2);
		poller.executions[0].end();
		poller.executions[1].fail();
		await new Promise((resolve) => setImmediate(resolve));
		expect(poller.staticData.running).toEqual({});
		expect(await poller.poll()).toBeNull();
	});

	it('after a restart that ended no execution of its own, the last execution before it may run again: at least once', async () => {
		const first = new Poller(admin(), { events: ['*'] });
		await first.poll();
		createLabs(1, 'Last before restart');
		await first.poll(); // ended, but n8n stores static data only when the next execution starts
		const again = await first.restarted().poll();
		expect((again ?? []).map((item) => (item.data as IDataObject).name)).toEqual([
			'Last before restart 0',
		]);
	});

	it('asks the API only for the types it listens to, and emits what a poller of every type would of them', async () => {
		const proxy = await LossyProxy.start(server.url);
		try {
			const selected = ['member.removed', 'lab_version.published'];
			const narrow = new Poller({ ...admin(), baseUrl: proxy.url }, { events: selected });
			const wide = new Poller(admin(), { events: ['*'] });
			await narrow.poll();
			await wide.poll();
			createLabs(450, 'Busy');
			await removeTrainers(org, 3);
			await org.admin.post(`/labs/${org.labId}/versions/${org.draftVersionId}/publish`);
			createLabs(10, 'Busy after');
			proxy.exchanges.length = 0;
			const items = (await narrow.poll())!;
			const everything = (await wide.poll())!;
			expect(items).toEqual(everything.filter((item) => selected.includes(item.type as string)));
			expect(items.map((item) => item.type)).toEqual([
				'member.removed',
				'member.removed',
				'member.removed',
				'lab_version.published',
			]);
			// `GET /me` for the organization, then one page of the selected types: not the 3 pages of 470 events.
			const lists = proxy.exchanges.filter((e) => e.path.includes('/events'));
			expect(proxy.exchanges).toHaveLength(2);
			expect(new URL(lists[0].path, server.url).searchParams.get('types')).toBe(selected.join(','));
		} finally {
			await proxy.stop();
		}
	});

	it('goes on from a position saved before it filtered by type (an event of another type)', async () => {
		const poller = new Poller(admin(), { events: ['member.removed'] });
		await poller.poll();
		createLabs(1, 'Saved position');
		const newest = eventsInLog().at(-1)!;
		const saved = server.db
			.prepare('SELECT occurred_at FROM events WHERE id = ?')
			.get(newest.id) as {
			occurred_at: string;
		};
		poller.staticData.lastEventId = newest.id;
		poller.staticData.lastOccurredAt = saved.occurred_at;
		const [removed] = await removeTrainers(org, 1);
		const items = (await poller.poll())!;
		expect(items.map((item) => (item.data as { user_id: string }).user_id)).toEqual([removed]);
		expect(await poller.poll()).toBeNull();
	});

	it('can put all new events in one item', async () => {
		const poller = new Poller(admin(), { events: ['lab.created'], output: 'allEvents' });
		await poller.poll();
		createLabs(3, 'Grouped');
		const items = (await poller.poll())!;
		expect(items).toHaveLength(1);
		expect(
			(items[0].events as IDataObject[]).map((event) => (event.data as IDataObject).name),
		).toEqual(['Grouped 0', 'Grouped 1', 'Grouped 2']);
	});

	it('refuses a trainer key with a message naming the admin key it needs', async () => {
		const poller = new Poller({ baseUrl: server.url, apiKey: org.trainer.key! }, { events: ['*'] });
		await expect(poller.poll()).rejects.toThrow(
			/needs an admin API key; this credential's key acts as trainer/,
		);
		expect(poller.staticData).toEqual({});
	});

	it('in the editor (Fetch Test Event) returns the newest matching event, or says there is none', async () => {
		createLabs(1, 'Newest');
		const items = await new Poller(admin(), { events: ['lab.created'] }).poll('manual');
		expect(items).toEqual([
			expect.objectContaining({
				type: 'lab.created',
				data: expect.objectContaining({ name: 'Newest 0' }),
			}),
		]);
		await expect(new Poller(admin(), { events: ['org.closed'] }).poll('manual')).rejects.toThrow(
			'No matching event in the activity log yet',
		);
	});
});
