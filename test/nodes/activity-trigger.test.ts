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
/** The trigger's consumer as the API keeps it (null before its first poll). */
const consumerOf = (poller: Poller) =>
	server.db
		.prepare(
			`SELECT c.position_event_id, (SELECT count(*) FROM event_batches b WHERE b.consumer_seq = c.seq) AS open
       FROM event_consumers c WHERE c.org_id = ? AND c.description LIKE ?`,
		)
		.get(org.id, `%(${poller.workflowId})%`) as
		| { position_event_id: string | null; open: number }
		| undefined;
const names = (items: IDataObject[] | null) =>
	(items ?? []).map((item) => (item.data as IDataObject).name);
/** Lets the trigger's reports of ended executions reach the API. */
const reportsSent = async (poller: Poller, open: number) => {
	for (let i = 0; i < 1000 && consumerOf(poller)?.open !== open; i++)
		await new Promise((resolve) => setTimeout(resolve, 5));
	expect(consumerOf(poller)?.open).toBe(open);
};
/** The organization's events, oldest first, straight from the database. */
const eventsInLog = (): Array<{ id: string; type: string }> =>
	server.db
		.prepare('SELECT id, type FROM events WHERE org_id = ? ORDER BY seq')
		.all(org.id) as Array<{ id: string; type: string }>;

describe('Training Lab Activity Trigger (polling)', () => {
	it('on its first poll, has the API record where the log stands, and emits nothing', async () => {
		const poller = new Poller(admin(), { events: ['*'] });
		expect(await poller.poll()).toBeNull();
		expect(consumerOf(poller)).toEqual({ position_event_id: eventsInLog().at(-1)!.id, open: 0 });
		expect(await poller.poll()).toBeNull();
		expect(poller.staticData).toEqual({});
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

	it('starts one execution per 1,000 events of a backlog, each event once', async () => {
		const poller = new Poller(admin(), { events: ['lab.created'] });
		await poller.poll();
		createLabs(1250, 'Backlog');
		const items = (await poller.poll())!;
		expect(poller.executions.map((execution) => execution.items.length)).toEqual([1000, 250]);
		expect(names(items)).toEqual(Array.from({ length: 1250 }, (_, i) => `Backlog ${i}`));
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
		const position = consumerOf(poller);
		const before = eventsInLog().length;
		createLabs(5, 'While down');
		poller.credentials = { baseUrl: 'http://127.0.0.1:9/api/v1', apiKey: org.admin.key! };
		await expect(poller.poll()).rejects.toThrow();
		expect(consumerOf(poller)).toEqual(position);
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
		expect(names(await restarted.poll())).toEqual([
			'Running 0',
			'Running 1',
			'Running 2',
			'During restart 0',
		]);
		expect(restarted.executions.map((execution) => names(execution.items))).toEqual([
			['Running 0', 'Running 1', 'Running 2'],
			['During restart 0'],
		]);
		expect(await restarted.poll()).toBeNull();
		await reportsSent(restarted, 0);
		// Their end was reported: a later restart starts nothing again.
		createLabs(1, 'Later');
		expect(names(await restarted.poll())).toEqual(['Later 0']);
		await reportsSent(restarted, 0);
		expect(await restarted.restarted().poll()).toBeNull();
	});

	it('a restart after executions that ended starts none of them again', async () => {
		const first = new Poller(admin(), { events: ['*'] });
		await first.poll();
		createLabs(1, 'Last before restart');
		await first.poll();
		await reportsSent(first, 0);
		expect(await first.restarted().poll()).toBeNull();
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
		expect(consumerOf(poller)?.open).toBe(2);
		poller.executions[0].end();
		poller.executions[1].fail();
		await reportsSent(poller, 0);
		expect(await poller.poll()).toBeNull();
		expect(await poller.restarted().poll()).toBeNull();
	});

	it('saved five times while 10 events happen and executions run: each event starts one execution', async () => {
		let poller = new Poller(admin(), { events: ['lab.created'] });
		await poller.poll();
		const all: Poller[] = [poller];
		for (let save = 0; save < 5; save++) {
			createLabs(2, `Save ${save}`);
			// Every other execution still runs at the next save; n8n stored the static data of each emit.
			poller.endAtOnce = save % 2 === 0;
			await poller.poll();
			poller = poller.saved();
			all.push(poller);
			await poller.poll();
		}
		for (const each of all) for (const execution of each.executions) execution.end();
		await reportsSent(poller, 0);
		const started = all.flatMap((each) => each.executions.flatMap((e) => names(e.items)));
		expect(started).toEqual(
			Array.from({ length: 10 }, (_, i) => `Save ${Math.floor(i / 2)} ${i % 2}`),
		);
		expect(await poller.saved().poll()).toBeNull();
		expect(await poller.restarted().poll()).toBeNull();
	});

	it('two polls of one node at once (a save during a poll) start a lost execution once', async () => {
		const first = new Poller(admin(), { events: ['lab.created'] });
		await first.poll();
		first.endAtOnce = false;
		createLabs(2, 'Lost');
		await first.poll();
		const restarted = first.restarted();
		const beside = restarted.saved();
		const [a, b] = await Promise.all([restarted.poll(), beside.poll()]);
		expect([...names(a), ...names(b)]).toEqual(['Lost 0', 'Lost 1']);
	});

	it('an execution that ends while the API is unreachable is reported at a later poll, and not run again', async () => {
		const proxy = await LossyProxy.start(server.url);
		try {
			const poller = new Poller({ ...admin(), baseUrl: proxy.url }, { events: ['lab.created'] });
			await poller.poll();
			poller.endAtOnce = false;
			createLabs(1, 'Unreported');
			await poller.poll();
			proxy.refuse = (req) => req.method === 'DELETE';
			poller.executions[0].end();
			// The report and its two retries, refused.
			const refused = () => proxy.exchanges.filter((e) => e.method === 'DELETE' && e.lost).length;
			for (let i = 0; i < 1000 && refused() < 3; i++) await new Promise((r) => setTimeout(r, 5));
			expect(refused()).toBe(3);
			expect(consumerOf(poller)?.open).toBe(1);
			poller.credentials = admin();
			// Each poll names the batch as this process's own (it is not started again) until its report gets through.
			for (let i = 0; i < 100 && consumerOf(poller)?.open !== 0; i++) {
				expect(await poller.poll()).toBeNull();
				await new Promise((r) => setTimeout(r, 5));
			}
			expect(consumerOf(poller)?.open).toBe(0);
			expect(poller.executions).toHaveLength(1);
			expect(await poller.restarted().poll()).toBeNull();
		} finally {
			await proxy.stop();
		}
	});

	it('takes over the position the previous version stored, and nothing of its running record', async () => {
		createLabs(1, 'Before the saved position');
		const saved = eventsInLog().at(-1)!;
		const occurredAt = (
			server.db.prepare('SELECT occurred_at FROM events WHERE id = ?').get(saved.id) as {
				occurred_at: string;
			}
		).occurred_at;
		createLabs(2, 'After the saved position');
		const upgraded = new Poller(
			admin(),
			{ events: ['lab.created'] },
			{
				lastEventId: saved.id,
				lastOccurredAt: occurredAt,
				running: { [saved.id]: [{ id: saved.id }] },
			},
		);
		expect(names(await upgraded.poll())).toEqual([
			'After the saved position 0',
			'After the saved position 1',
		]);
		expect(upgraded.staticData).toEqual({});
		expect(await upgraded.poll()).toBeNull();
	});

	it('takes over an empty-log position of the previous version as the start of the log', async () => {
		const upgraded = new Poller(
			admin(),
			{ events: ['org.closed', 'lab.created'] },
			{ lastEventId: '' },
		);
		const items = (await upgraded.poll())!;
		expect(items.length).toBe(
			eventsInLog().filter((event) => ['org.closed', 'lab.created'].includes(event.type)).length,
		);
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
			// `GET /me` for the organization, then one batch of the selected types (not 470 events read
			// and filtered here), then the execution's end reported.
			await reportsSent(narrow, 0);
			const consumerPath = /^\/api\/v1\/orgs\/[^/]+\/event-consumers\/[^/]+\/batches/;
			expect(
				proxy.exchanges.map((e) => [e.method, e.path.replace(consumerPath, '…/batches')]),
			).toEqual([
				['GET', '/api/v1/me'],
				['POST', '…/batches'],
				['DELETE', expect.stringMatching(/^…\/batches\/[0-9a-f-]{36}$/)],
			]);
			const types = server.db
				.prepare('SELECT event_types FROM event_consumers WHERE description LIKE ?')
				.pluck()
				.get(`%(${narrow.workflowId})%`);
			expect(JSON.parse(types as string)).toEqual(selected);
		} finally {
			await proxy.stop();
		}
	});

	it('goes on from a position the previous version saved before it filtered by type (an event of another type)', async () => {
		createLabs(1, 'Saved position');
		const newest = eventsInLog().at(-1)!;
		const poller = new Poller(admin(), { events: ['member.removed'] }, { lastEventId: newest.id });
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
