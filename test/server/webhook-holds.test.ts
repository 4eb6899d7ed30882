import { Webhook } from 'standardwebhooks';
import { createOrg, removeTrainers, serverWithOrg, type TestOrg } from '../support/fixtures.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { Receiver, type ReceivedDelivery } from '../support/receiver.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { eventually } from '../../tooling/eventually.ts';

// An endpoint its receiver holds while it is away (an n8n workflow deactivated, or being saved):
// what happens meanwhile is kept and sent once it is released, or skipped and recoverable.
let server: TestServer;
let receiver: Receiver;
beforeAll(async () => {
	receiver = await Receiver.start();
	server = await startTestServer({
		WEBHOOK_ALLOW_INSECURE_URLS: 'true',
		WEBHOOK_RETRY_SCHEDULE_S: '0.3,0.3,0.3',
		WEBHOOK_TIMEOUT_MS: '2000',
		RATE_LIMIT_REQUESTS: '100000',
	});
});
afterAll(async () => {
	await server.stop();
	await receiver.stop();
});

let org: TestOrg;
beforeEach(async () => {
	org = await createOrg(server);
	receiver.reply = () => ({ status: 204 });
});

interface Endpoint {
	id: string;
	secret: string;
	path: string;
	base: string;
}

let pathCounter = 0;
async function subscribe(): Promise<Endpoint> {
	const path = `/held-${++pathCounter}`;
	const response = await org.admin.post(`/orgs/${org.id}/webhooks`, {
		url: `${receiver.url}${path}`,
		event_types: ['member.removed'],
	});
	expect(response.status).toBe(201);
	return { ...response.body, path, base: `/orgs/${org.id}/webhooks/${response.body.id}` };
}

const deliveriesOf = async (hook: Endpoint) =>
	(await org.admin.get(`${hook.base}/deliveries`)).body as any[];
const removedIn = (hook: Endpoint, deliveries: ReceivedDelivery[]) =>
	deliveries
		.map((d) => (new Webhook(hook.secret).verify(d.body, d.headers as any) as any).data.user_id)
		.sort();

describe('a held endpoint', () => {
	it('keeps what happens while held, unsent, and sends each once when released: the same endpoint', async () => {
		const hook = await subscribe();
		const held = await org.admin.patch(hook.base, { held: true });
		expect(held.status).toBe(200);
		expect(held.body).toMatchObject({ id: hook.id, disabled_at: null });
		expect(Date.parse(held.body.held_since)).not.toBeNaN();

		const meanwhile = await removeTrainers(org, 3);
		await server.webhooksIdle();
		expect(receiver.at(hook.path)).toEqual([]);
		expect(await deliveriesOf(hook)).toEqual(
			meanwhile.map(() => expect.objectContaining({ status: 'pending', attempts: 0 })),
		);

		const released = await org.admin.patch(hook.base, { held: false });
		expect(released.body).toMatchObject({ id: hook.id, held_since: null });
		await receiver.waitFor(() => receiver.at(hook.path).length === 3);
		await server.webhooksIdle();
		expect(removedIn(hook, receiver.at(hook.path))).toEqual(meanwhile.sort());
		expect(receiver.at(hook.path)).toHaveLength(3);
		const log = (await org.admin.get(`/orgs/${org.id}/events?limit=10`)).body;
		expect(log.filter((e: any) => e.type === 'webhook.updated').map((e: any) => e.data)).toEqual([
			{
				webhook_id: hook.id,
				url: expect.any(String),
				changes: { held: { from: true, to: false } },
			},
			{
				webhook_id: hook.id,
				url: expect.any(String),
				changes: { held: { from: false, to: true } },
			},
		]);
	});

	it('sends a delivery that failed before it was held at its next attempt after the release, not lost and not twice', async () => {
		const hook = await subscribe();
		receiver.reply = () => ({ status: 500 });
		const [failedBefore] = await removeTrainers(org, 1);
		await eventually(
			async () => (await deliveriesOf(hook))[0].attempts === 1,
			'the first attempt to fail',
		);
		await org.admin.patch(hook.base, { held: true });
		receiver.reply = () => ({ status: 204 });
		await server.webhooksIdle();
		const [waiting] = await deliveriesOf(hook);
		expect(waiting.status).toBe('failed');
		// Its retry falls due while held: nothing is sent.
		const due = Date.parse(waiting.next_attempt_at);
		await eventually(() => Date.now() > due, 'its retry to fall due');
		await server.webhooksIdle();
		expect(receiver.at(hook.path)).toHaveLength(waiting.attempts);

		await org.admin.patch(hook.base, { held: false, skip_held_events: true });
		const [delivered] = await eventually(async () => {
			const all = await deliveriesOf(hook);
			return all[0].status === 'succeeded' && all;
		}, 'the retry after the release');
		expect(delivered.attempts).toBe(waiting.attempts + 1);
		expect(removedIn(hook, receiver.at(hook.path))).toEqual(
			Array(waiting.attempts + 1).fill(failedBefore),
		);
	});

	it('released skipping what happened meanwhile: those are given up, named as skipped, and a recovery sends them', async () => {
		const hook = await subscribe();
		receiver.reply = () => ({ status: 204 });
		const [before] = await removeTrainers(org, 1);
		await receiver.waitFor(() => receiver.at(hook.path).length === 1);
		await org.admin.patch(hook.base, { held: true });
		const since = (await org.admin.get(hook.base)).body.held_since;
		const meanwhile = await removeTrainers(org, 2);

		const released = await org.admin.patch(hook.base, { held: false, skip_held_events: true });
		expect(released.status).toBe(200);
		await server.webhooksIdle();
		expect(removedIn(hook, receiver.at(hook.path))).toEqual([before]);
		const skipped = (await deliveriesOf(hook)).filter((d) => d.status === 'exhausted');
		expect(skipped).toHaveLength(2);
		for (const delivery of skipped)
			expect(delivery).toMatchObject({
				attempts: 0,
				next_attempt_at: null,
				last_error: `Skipped: it happened while the endpoint was held, and admin@${org.slug}.test released it without it. A recovery sends it.`,
			});
		const [updated] = (await org.admin.get(`/orgs/${org.id}/events?limit=1`)).body;
		expect(updated).toMatchObject({ type: 'webhook.updated', data: { skipped: 2 } });

		expect((await org.admin.post(`${hook.base}/recover`, { since })).body.queued).toBe(2);
		await receiver.waitFor(() => receiver.at(hook.path).length === 3);
		expect(removedIn(hook, receiver.at(hook.path).slice(1))).toEqual(meanwhile.sort());
	});

	it('keeps a delivery whose attempt was in flight when it was held: refused then, sent after the release', async () => {
		const hook = await subscribe();
		let answer!: () => void;
		const answered = new Promise<void>((resolve) => (answer = resolve));
		receiver.reply = () => ({ status: 404, after: answered });
		const [inFlight] = await removeTrainers(org, 1);
		await receiver.waitFor(() => receiver.at(hook.path).length === 1);
		await org.admin.patch(hook.base, { held: true });
		answer();
		await eventually(
			async () => (await deliveriesOf(hook))[0].status === 'failed',
			'the refused attempt',
		);
		receiver.reply = () => ({ status: 204 });
		await org.admin.patch(hook.base, { held: false, skip_held_events: true });
		await receiver.waitFor(() => receiver.at(hook.path).length === 2);
		expect(removedIn(hook, receiver.at(hook.path))).toEqual([inFlight, inFlight]);
	});

	it('stays disabled when a person disabled it: releasing it sends nothing, what came meanwhile is kept for a recovery', async () => {
		const hook = await subscribe();
		await org.admin.patch(hook.base, { disabled: true });
		await org.admin.patch(hook.base, { held: true });
		const since = new Date().toISOString();
		const meanwhile = await removeTrainers(org, 2);
		const released = await org.admin.patch(hook.base, { held: false });
		expect(released.body).toMatchObject({ held_since: null, disabled_at: expect.any(String) });
		await server.webhooksIdle();
		expect(receiver.at(hook.path)).toEqual([]);
		await org.admin.patch(hook.base, { disabled: false });
		expect((await org.admin.post(`${hook.base}/recover`, { since })).body.queued).toBe(2);
		await receiver.waitFor(() => receiver.at(hook.path).length === 2);
		expect(removedIn(hook, receiver.at(hook.path))).toEqual(meanwhile.sort());
	});

	it.each([
		[
			'a test event',
			(hook: Endpoint) => org.admin.post(`${hook.base}/test`, { event_type: 'member.removed' }),
		],
		[
			'a recovery',
			(hook: Endpoint) => org.admin.post(`${hook.base}/recover`, { since: '2026-01-01T00:00:00Z' }),
		],
	])('refuses %s with 409 invalid_state while held', async (_, send) => {
		const hook = await subscribe();
		await org.admin.patch(hook.base, { held: true });
		const response = await send(hook);
		expect(response.status).toBe(409);
		expect(response.body.error).toEqual({
			code: 'invalid_state',
			message:
				'This endpoint is held: its receiver (such as an n8n workflow) is inactive, and its deliveries are kept until it is back. Activate the workflow first.',
		});
	});

	it('refuses skip_held_events unless the request releases it, changing nothing', async () => {
		const hook = await subscribe();
		for (const body of [{ skip_held_events: true }, { held: true, skip_held_events: true }]) {
			const response = await org.admin.patch(hook.base, body);
			expect(response.status).toBe(400);
			expect(response.body.error.details).toEqual([
				{
					path: 'skip_held_events',
					message: 'Only with "held": false, when the deliveries are released.',
				},
			]);
		}
		expect((await org.admin.get(hook.base)).body.held_since).toBeNull();
	});
});

describe('held endpoints and the limit of 20', () => {
	it('do not count toward it; releasing one when 20 others are not held is refused and it stays held', async () => {
		const { server: own, org: full } = await serverWithOrg({ WEBHOOK_ALLOW_INSECURE_URLS: 'true' });
		try {
			const create = (n: number) =>
				full.admin.post(`/orgs/${full.id}/webhooks`, {
					url: `http://127.0.0.1:9/limit-${n}`,
					event_types: ['org.closed'],
				});
			const base = (id: string) => `/orgs/${full.id}/webhooks/${id}`;
			// 25 endpoints made and held one after another, as 25 trigger workflows made and deleted.
			const heldOnes = [];
			for (let n = 1; n <= 25; n++) {
				const created = await create(n);
				expect(created.status).toBe(201);
				expect((await full.admin.patch(base(created.body.id), { held: true })).status).toBe(200);
				heldOnes.push(created.body.id);
			}
			for (let n = 26; n <= 45; n++) expect((await create(n)).status).toBe(201);
			expect((await create(46)).body.error.code).toBe('webhook_limit_reached');
			const refused = await full.admin.patch(base(heldOnes[0]), { held: false });
			expect(refused.status).toBe(409);
			expect(refused.body.error.code).toBe('webhook_limit_reached');
			expect((await full.admin.get(base(heldOnes[0]))).body.held_since).not.toBeNull();
		} finally {
			await own.stop();
		}
	});

	it('beyond 100 held, the one held longest is deleted with what it kept, recorded as webhook.deleted by the system', async () => {
		const { server: own, org: many } = await serverWithOrg({ WEBHOOK_ALLOW_INSECURE_URLS: 'true' });
		try {
			const ids: string[] = [];
			for (let n = 1; n <= 101; n++) {
				const created = await many.admin.post(`/orgs/${many.id}/webhooks`, {
					url: `http://127.0.0.1:9/many-${n}`,
					event_types: ['org.closed'],
				});
				await many.admin.patch(`/orgs/${many.id}/webhooks/${created.body.id}`, { held: true });
				ids.push(created.body.id);
			}
			const left = (await many.admin.getAll(`/orgs/${many.id}/webhooks`)).items.map(
				(w: { id: string }) => w.id,
			);
			expect(left).toEqual(ids.slice(1));
			const [deleted] = (await many.admin.get(`/orgs/${many.id}/events?limit=2`)).body.filter(
				(e: any) => e.type === 'webhook.deleted',
			);
			expect(deleted).toMatchObject({
				actor: 'system',
				data: {
					webhook_id: ids[0],
					reason: 'The organization held more than 100 endpoints; this one was held longest.',
				},
			});
		} finally {
			await own.stop();
		}
	});

	it('held for 30 days, an endpoint is deleted by the hourly upkeep; one held for less stays', async () => {
		const clock = new ManualClock();
		const own = await startTestServer({ WEBHOOK_ALLOW_INSECURE_URLS: 'true' }, { clock });
		try {
			const old = await createOrg(own);
			const endpoint = async (n: number) => {
				const created = await old.admin.post(`/orgs/${old.id}/webhooks`, {
					url: `http://127.0.0.1:9/old-${n}`,
					event_types: ['org.closed'],
				});
				await old.admin.patch(`/orgs/${old.id}/webhooks/${created.body.id}`, { held: true });
				return created.body.id as string;
			};
			const longHeld = await endpoint(1);
			clock.advance(20 * 24 * 60 * 60 * 1000);
			const recent = await endpoint(2);
			clock.advance(10 * 24 * 60 * 60 * 1000 - 1);
			expect(own.services.webhookEndpoints.deleteLongHeld()).toBe(0);
			clock.advance(2);
			expect(own.services.webhookEndpoints.deleteLongHeld()).toBe(1);
			expect((await old.admin.get(`/orgs/${old.id}/webhooks`)).body.map((w: any) => w.id)).toEqual([
				recent,
			]);
			const [deleted] = (await old.admin.get(`/orgs/${old.id}/events?limit=1`)).body;
			expect(deleted).toMatchObject({
				type: 'webhook.deleted',
				actor: 'system',
				data: {
					webhook_id: longHeld,
					reason: 'Held for 30 days: its receiver did not come back.',
				},
			});
		} finally {
			await own.stop();
		}
	});
});
