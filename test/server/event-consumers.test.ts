import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../server/src/db/connection.ts';
import { createServices } from '../../server/src/services/index.ts';
import { BOUNDS } from '../../server/src/schemas/bounds.ts';
import { createOrg, removeTrainers, serverWithOrg, type TestOrg } from '../support/fixtures';
import { ManualClock } from '../support/manual-clock';
import type { TestServer } from '../support/test-server';

// The API keeps where a reader of the activity log stands, and hands out its new events in batches
// that stay open until the reader says their work is done: a batch whose reader stopped is handed out
// again, and an event whose batch was done never is.
let server: TestServer;
let org: TestOrg;
beforeAll(async () => {
	({ server, org } = await serverWithOrg({
		RATE_LIMIT_REQUESTS: '100000',
		WEBHOOK_ALLOW_INSECURE_URLS: 'true',
	}));
});
afterAll(() => server.stop());

interface Batch {
	id: string;
	events: Array<{ id: string; type: string; occurred_at: string; data: Record<string, unknown> }>;
	attempts: number;
}
interface Taken {
	consumer: {
		id: string;
		position: { event_id: string; occurred_at: string } | null;
		open_batches: number;
		event_types: string[] | null;
		description: string | null;
	};
	batch: Batch | null;
	unfinished: Batch[];
}

const consumersPath = (of = org) => `/orgs/${of.id}/event-consumers`;
/** A new consumer, at `start` (by default after the newest event). */
const create = async (body: Record<string, unknown> = {}, of = org) => {
	const id = randomUUID();
	const response = await of.admin.post(consumersPath(of), { id, ...body });
	expect(response.status).toBe(201);
	return id;
};
const take = async (consumerId: string, body: Record<string, unknown> = {}, of = org) => {
	const response = await of.admin.post<Taken>(`${consumersPath(of)}/${consumerId}/batches`, {
		batch_id: randomUUID(),
		...body,
	});
	expect(response.status).toBe(200);
	return response.body;
};
const finish = (consumerId: string, batchId: string) =>
	org.admin.delete(`${consumersPath()}/${consumerId}/batches/${batchId}`);
const createLabs = async (count: number, prefix: string) => {
	const ids: string[] = [];
	for (let i = 0; i < count; i++)
		ids.push(
			(await org.admin.post('/labs', { name: `${prefix} ${i} ${randomUUID()}`, tier: 'vm' })).body
				.id,
		);
	return ids;
};
/** The organization's events, oldest first, as the activity log holds them. */
const logEvents = async () =>
	((await org.admin.getAll(`/orgs/${org.id}/events?limit=200`)).items as Array<{ id: string }>)
		.map((event) => event.id)
		.reverse();
const labIds = (batch: Batch | null) => (batch?.events ?? []).map((event) => event.data.lab_id);

describe('event consumers', () => {
	it('begin after the newest event, then hand out each new event once, oldest first', async () => {
		const consumer = await create({ description: 'n8n: Offboarding' });
		const first = await take(consumer);
		const newest = (await logEvents()).at(-1);
		expect(first.batch).toBeNull();
		expect(first.unfinished).toEqual([]);
		expect(first.consumer).toMatchObject({
			id: consumer,
			description: 'n8n: Offboarding',
			position: { event_id: newest },
			open_batches: 0,
		});

		const labs = await createLabs(3, 'New');
		const second = await take(consumer);
		expect(labIds(second.batch)).toEqual(labs);
		expect(second.batch!.attempts).toBe(1);
		expect(second.consumer.position?.event_id).toBe((await logEvents()).at(-1));
		expect(second.consumer.open_batches).toBe(1);
		// Nothing new since, and the open batch is this reader's own work in progress.
		const third = await take(consumer, { in_progress: [second.batch!.id] });
		expect(third.batch).toBeNull();
		expect(third.unfinished).toEqual([]);
	});

	it('hand out the same batch again to a repeat of the request (its answer lost), and take nothing more', async () => {
		const consumer = await create();
		const labs = await createLabs(2, 'Lost answer');
		const batchId = randomUUID();
		const first = await take(consumer, { batch_id: batchId });
		await createLabs(1, 'After');
		const again = await take(consumer, { batch_id: batchId });
		expect(again.batch).toEqual(first.batch);
		expect(labIds(again.batch)).toEqual(labs);
		expect(again.consumer.open_batches).toBe(1);
	});

	it('hand out only the types asked for, and do not pass over other events again', async () => {
		const consumer = await create();
		const types = ['member.removed'];
		await createLabs(5, 'Other type');
		const [removed] = await removeTrainers(org, 1);
		await createLabs(5, 'Other type after');
		const taken = await take(consumer, { event_types: types });
		expect(taken.batch!.events.map((event) => [event.type, event.data.user_id])).toEqual([
			['member.removed', removed],
		]);
		expect(taken.consumer.event_types).toEqual(types);
		// The position is the log's newest event, of whatever type: the labs after it are not read again.
		expect(taken.consumer.position?.event_id).toBe((await logEvents()).at(-1));
		expect(
			(await take(consumer, { event_types: types, in_progress: [taken.batch!.id] })).batch,
		).toBeNull();
	});

	it('cut a backlog into batches of `limit`, none repeated, none skipped', async () => {
		const consumer = await create();
		const labs = await createLabs(25, 'Backlog');
		const seen: unknown[] = [];
		const sizes: number[] = [];
		const mine: string[] = [];
		for (;;) {
			const taken = await take(consumer, { limit: 10, in_progress: mine });
			if (!taken.batch) break;
			mine.push(taken.batch.id);
			sizes.push(taken.batch.events.length);
			seen.push(...labIds(taken.batch));
		}
		expect(sizes).toEqual([10, 10, 5]);
		expect(seen).toEqual(labs);
	});

	it('hand out again a batch whose reader stopped before it was done, until it is done', async () => {
		const consumer = await create();
		const labs = await createLabs(2, 'Crashed');
		const crashed = (await take(consumer)).batch!;
		const later = await createLabs(1, 'Later');

		// A new reader (n8n started again) knows nothing of the crashed one's batch.
		const next = await take(consumer);
		expect(next.unfinished.map((batch) => [batch.id, labIds(batch), batch.attempts])).toEqual([
			[crashed.id, labs, 2],
		]);
		expect(labIds(next.batch)).toEqual(later);
		// It names both as its own from now on: neither comes back.
		const mine = [crashed.id, next.batch!.id];
		expect((await take(consumer, { in_progress: mine })).unfinished).toEqual([]);

		expect((await finish(consumer, crashed.id)).status).toBe(204);
		expect((await finish(consumer, crashed.id)).status).toBe(204);
		const detail = (await org.admin.get(`${consumersPath()}/${consumer}`)).body;
		expect(detail.batches).toEqual([
			expect.objectContaining({
				id: next.batch!.id,
				attempts: 1,
				event_ids: next.batch!.events.map((event) => event.id),
			}),
		]);
		await finish(consumer, next.batch!.id);
		const after = await take(consumer);
		expect(after.unfinished).toEqual([]);
		expect(after.consumer.open_batches).toBe(0);
	});

	it('hand out nothing new while the most batches are open, and go on once one is done', async () => {
		const consumer = await create();
		const { max } = BOUNDS.eventConsumers.openBatches;
		await createLabs(max + 1, 'Open');
		const open: string[] = [];
		for (let i = 0; i < max; i++)
			open.push((await take(consumer, { limit: 1, in_progress: open })).batch!.id);
		const full = await take(consumer, { limit: 1, in_progress: open });
		expect(full.batch).toBeNull();
		expect(full.consumer.open_batches).toBe(max);
		await finish(consumer, open.shift()!);
		const next = await take(consumer, { limit: 1, in_progress: open });
		expect(labIds(next.batch)).toHaveLength(1);
	});

	it('begin where `start` says', async () => {
		const labs = await createLabs(3, 'Start');
		const events = await logEvents();
		const afterFirst = await create({ start: { after_event_id: events.at(-3) } });
		expect(labIds((await take(afterFirst)).batch)).toEqual(labs.slice(1));

		// An event not in the log (past its retention): the time given with it instead.
		const occurredAt = (
			(await org.admin.get(`/orgs/${org.id}/events?limit=3`)).body as Array<{ occurred_at: string }>
		)[2].occurred_at;
		const byTime = await create({ start: { after_event_id: randomUUID(), after: occurredAt } });
		const taken = await take(byTime);
		// Everything at or after that time: the three labs, and whatever happened in the same millisecond before.
		expect(labIds(taken.batch).slice(-3)).toEqual(labs);
		for (const event of taken.batch!.events) expect(event.occurred_at >= occurredAt).toBe(true);

		const fromTheStart = await create({ start: { after: '1970-01-01T00:00:00Z' } });
		const all = await take(fromTheStart, { limit: 1000 });
		expect(all.batch!.events.map((event) => event.id)).toEqual((await logEvents()).slice(0, 1000));

		// Created once: a second create with its id is refused, and changes nothing.
		const again = await org.admin.post(consumersPath(), { id: fromTheStart });
		expect(again.status).toBe(409);
		expect(again.body.error.code).toBe('consumer_exists');
		expect((await org.admin.get(`${consumersPath()}/${fromTheStart}`)).body.open_batches).toBe(1);
	});

	it('never hand out a test event', async () => {
		const consumer = await create();
		const webhook = (
			await org.admin.post(`/orgs/${org.id}/webhooks`, {
				url: `http://127.0.0.1:9/test-${randomUUID()}`,
				event_types: ['lab.created'],
			})
		).body;
		await org.admin.post(`/orgs/${org.id}/webhooks/${webhook.id}/test`, {
			event_type: 'lab.created',
		});
		const taken = await take(consumer);
		expect(taken.batch!.events.map((event) => event.type)).toEqual([
			'webhook.created',
			'webhook.test_sent',
		]);
		await org.admin.delete(`/orgs/${org.id}/webhooks/${webhook.id}`);
	});

	it('hand out each event once to readers taking at the same time', async () => {
		const consumer = await create();
		const labs = await createLabs(40, 'Race');
		const batches = await Promise.all(
			Array.from({ length: 8 }, () => take(consumer, { limit: 7, in_progress: [] })),
		);
		const more: Taken[] = [];
		for (
			let taken = await take(consumer, { limit: 7 });
			taken.batch;
			taken = await take(consumer, { limit: 7 })
		)
			more.push(taken);
		const handedOut = [...batches, ...more].flatMap((taken) => labIds(taken.batch));
		expect([...handedOut].sort()).toEqual([...labs].sort());
	});

	it('are listed, shown and deleted; another organization has its own', async () => {
		const consumer = await create({ description: 'Listed' });
		const listed = (await org.admin.getAll(consumersPath())).items;
		expect(listed).toContainEqual(expect.objectContaining({ id: consumer, description: 'Listed' }));

		const other = await createOrg(server);
		expect(
			(await other.admin.post(consumersPath(other), { id: consumer, description: 'Theirs' }))
				.status,
		).toBe(201);
		expect((await other.admin.getAll(consumersPath(other))).items).toEqual([
			expect.objectContaining({ id: consumer, description: 'Theirs' }),
		]);

		expect((await org.admin.delete(`${consumersPath()}/${consumer}`)).status).toBe(204);
		for (const response of [
			await org.admin.get(`${consumersPath()}/${consumer}`),
			await finish(consumer, randomUUID()),
			await org.admin.post(`${consumersPath()}/${consumer}/batches`, { batch_id: randomUUID() }),
		]) {
			expect(response.status).toBe(404);
			expect(response.body.error.code).toBe('not_found');
		}
		expect((await other.admin.get(`${consumersPath(other)}/${consumer}`)).status).toBe(200);
	});

	it('refuse bad requests with the field named, and change nothing', async () => {
		const consumer = await create();
		const before = (await org.admin.get(`${consumersPath()}/${consumer}`)).body;
		await createLabs(1, 'Waiting');
		const takes: Array<[Record<string, unknown>, string]> = [
			[{}, 'batch_id'],
			[{ batch_id: 'nope' }, 'batch_id'],
			[{ batch_id: randomUUID(), limit: 0 }, 'limit'],
			[{ batch_id: randomUUID(), limit: 1001 }, 'limit'],
			[{ batch_id: randomUUID(), event_types: ['member.gone'] }, 'event_types.0'],
			[{ batch_id: randomUUID(), in_progress: ['x'] }, 'in_progress.0'],
		];
		for (const [body, field] of takes) {
			const response = await org.admin.post(`${consumersPath()}/${consumer}/batches`, body);
			expect(response.status).toBe(400);
			expect(response.body.error.details.map((detail: { path: string }) => detail.path)).toContain(
				field,
			);
		}
		expect((await org.admin.get(`${consumersPath()}/${consumer}`)).body).toEqual(before);
		const creates: Array<[Record<string, unknown>, string]> = [
			[{}, 'id'],
			[{ id: randomUUID(), start: { after: 'yesterday' } }, 'start.after'],
			[{ id: randomUUID(), start: { after_event_id: 12 } }, 'start.after_event_id'],
			[{ id: randomUUID(), description: 'x'.repeat(201) }, 'description'],
		];
		for (const [body, field] of creates) {
			const response = await org.admin.post(consumersPath(), body);
			expect(response.status).toBe(400);
			expect(response.body.error.details.map((detail: { path: string }) => detail.path)).toContain(
				field,
			);
			if (body.id) expect((await org.admin.get(`${consumersPath()}/${body.id}`)).status).toBe(404);
		}
	});
});

describe('event consumers, kept by the server', () => {
	it('an organization may have at most the bound; one that has not read for 30 days is deleted', () => {
		const dir = mkdtempSync(join(tmpdir(), 'traininglab-consumers-'));
		const db = openDatabase(join(dir, 'db.sqlite'));
		try {
			const clock = new ManualClock();
			const services = createServices(db, {
				allowInsecureWebhookUrls: true,
				clock,
			});
			const { org: own } = services.orgs.create({
				name: 'Consumers',
				admin: { email: 'ada@consumers.test', name: 'Ada' },
			});
			const { max, idleDays } = BOUNDS.eventConsumers;
			const ids = Array.from({ length: max }, () => randomUUID());
			for (const id of ids) services.eventConsumers.create(own.id, { id });
			expect(() => services.eventConsumers.create(own.id, { id: randomUUID() })).toThrow(
				expect.objectContaining({ code: 'consumer_limit_reached' }),
			);
			clock.advance(idleDays * 24 * 60 * 60 * 1000 - 1);
			services.eventConsumers.takeBatch(own.id, ids.at(-1)!, {
				batch_id: randomUUID(),
				limit: 100,
				in_progress: [],
			});
			expect(services.eventConsumers.deleteIdle()).toBe(0);
			clock.advance(2);
			expect(services.eventConsumers.deleteIdle()).toBe(max - 1);
			services.eventConsumers.create(own.id, { id: randomUUID() });
			expect(
				services.eventConsumers.list(own.id, { limit: 200 }).items.map((c) => c.id),
			).toHaveLength(2);
			expect(services.eventConsumers.get(own.id, ids.at(-1)!).id).toBe(ids.at(-1));
		} finally {
			db.close();
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
