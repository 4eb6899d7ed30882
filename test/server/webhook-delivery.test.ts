import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { openDatabase } from '../../server/src/db/connection.ts';
import { createServices } from '../../server/src/services/index.ts';
import { createOrg, sessionInput, type TestOrg } from '../support/fixtures.ts';
import { answered, outboxOn, room } from '../support/outbox.ts';
import { Receiver, type ReceivedDelivery } from '../support/receiver.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { eventually } from '../../tooling/eventually.ts';

let server: TestServer;
let receiver: Receiver;
beforeAll(async () => {
	receiver = await Receiver.start();
	server = await startTestServer({
		WEBHOOK_ALLOW_INSECURE_URLS: 'true',
		WEBHOOK_RETRY_SCHEDULE_S: '0.2,0.2',
		WEBHOOK_TIMEOUT_MS: '300',
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

let pathCounter = 0;
async function subscribe(eventTypes: string[], path = `/hook-${++pathCounter}`) {
	const response = await org.admin.post(`/orgs/${org.id}/webhooks`, {
		url: `${receiver.url}${path}`,
		event_types: eventTypes,
	});
	expect(response.status).toBe(201);
	return { ...response.body, path } as { id: string; secret: string; path: string };
}

const deliveriesOf = async (webhookId: string) =>
	(await org.admin.get(`/orgs/${org.id}/webhooks/${webhookId}/deliveries`)).body;
const payload = (delivery: ReceivedDelivery) => JSON.parse(delivery.body);

describe('webhook delivery', () => {
	it('delivers each subscribed event signed the Standard Webhooks way, and no other event', async () => {
		const hook = await subscribe(['member.removed', 'session.created']);
		await org.trainer.post('/sessions', sessionInput(org));
		await org.admin.post('/labs', { name: 'Not subscribed', tier: 'vm' });
		await org.admin.delete(`/orgs/${org.id}/members/${org.trainerUserId}`);
		await receiver.waitFor(() => receiver.at(hook.path).length === 2);
		await server.webhooksIdle();
		const received = receiver.at(hook.path);
		expect(received.map((d) => payload(d).type)).toEqual(['session.created', 'member.removed']);

		const verifier = new Webhook(hook.secret);
		for (const delivery of received) {
			const verified = verifier.verify(delivery.body, delivery.headers as Record<string, string>);
			expect(verified).toEqual(payload(delivery));
			expect(delivery.headers['content-type']).toBe('application/json');
			expect(delivery.headers['webhook-id']).toBe(payload(delivery).id);
			expect(
				Math.abs(Number(delivery.headers['webhook-timestamp']) - Date.now() / 1000),
			).toBeLessThan(5);
			expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
		}
		const removed = payload(received[1]);
		expect(removed).toEqual({
			id: expect.any(String),
			type: 'member.removed',
			occurred_at: expect.any(String),
			org_id: org.id,
			actor: `admin@${org.slug}.test`,
			data: { user_id: org.trainerUserId, email: org.trainerEmail, role: 'trainer' },
		});
		const event = (await org.admin.get(`/orgs/${org.id}/events?limit=1`)).body[0];
		expect(removed).toEqual({ ...event, org_id: org.id });
		expect((await deliveriesOf(hook.id)).map((d: { status: string }) => d.status)).toEqual([
			'succeeded',
			'succeeded',
		]);
	});

	it('fails verification for a tampered body, a wrong secret and a stale timestamp', async () => {
		const hook = await subscribe(['lab.created']);
		await org.admin.post('/labs', { name: 'Signed', tier: 'vm' });
		await receiver.waitFor(() => receiver.at(hook.path).length === 1);
		const [delivery] = receiver.at(hook.path);
		const headers = delivery.headers as Record<string, string>;
		const verifier = new Webhook(hook.secret);
		expect(() => verifier.verify(delivery.body, headers)).not.toThrow();
		expect(() => verifier.verify(delivery.body.replace('Signed', 'Forged'), headers)).toThrow();
		expect(() =>
			new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(delivery.body, headers),
		).toThrow();
		const stale = {
			...headers,
			'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 6 * 60),
		};
		expect(() => verifier.verify(delivery.body, stale)).toThrow();
	});

	it("delivers org.closed although the organization's keys stop working", async () => {
		const hook = await subscribe(['org.closed']);
		const closed = (await org.admin.post(`/orgs/${org.id}/close`)).body;
		expect((await org.admin.get('/me')).status).toBe(401);
		await receiver.waitFor(() => receiver.at(hook.path).length === 1);
		const body = new Webhook(hook.secret).verify(
			receiver.at(hook.path)[0].body,
			receiver.at(hook.path)[0].headers as Record<string, string>,
		);
		expect(body).toMatchObject({
			type: 'org.closed',
			org_id: org.id,
			data: { org_id: org.id, name: closed.name, slug: org.slug, closed_at: closed.closed_at },
		});
	});

	it('retries after a 500 and after a timeout with the same webhook-id, then succeeds', async () => {
		const hook = await subscribe(['lab.created']);
		let calls = 0;
		receiver.reply = () => {
			calls++;
			if (calls === 1) return { status: 500, body: 'database is down' };
			if (calls === 2) return { status: 200, delayMs: 1_000 };
			return { status: 200 };
		};
		await org.admin.post('/labs', { name: 'Flaky', tier: 'vm' });
		await receiver.waitFor(() => calls === 1);
		await waitForDelivery(hook.id, (d) => d.attempts === 1);
		const afterFirst = (await deliveriesOf(hook.id))[0];
		expect(afterFirst).toMatchObject({
			status: 'failed',
			attempts: 1,
			last_status_code: 500,
			last_error: 'HTTP 500: database is down',
		});
		expect(Date.parse(afterFirst.next_attempt_at)).toBeGreaterThan(
			Date.parse(afterFirst.last_attempt_at),
		);

		await waitForDelivery(hook.id, (d) => d.status === 'succeeded');
		const final = (await deliveriesOf(hook.id))[0];
		expect(final).toMatchObject({
			status: 'succeeded',
			attempts: 3,
			last_status_code: 200,
			last_error: null,
			next_attempt_at: null,
		});
		const ids = receiver.at(hook.path).map((d) => d.headers['webhook-id']);
		expect(ids).toHaveLength(3);
		expect(new Set(ids).size).toBe(1);

		// Every try stays readable, oldest first: the 500, the timeout, then the success.
		expect(final.attempt_log).toMatchObject([
			{ attempt: 1, status_code: 500, error: 'HTTP 500: database is down' },
			{ attempt: 2, status_code: null, error: 'Timed out after 300 ms' },
			{ attempt: 3, status_code: 200, error: null },
		]);
		const log = final.attempt_log as { attempted_at: string; duration_ms: number }[];
		expect(log[1].duration_ms).toBeGreaterThanOrEqual(300);
		expect(Date.parse(log[0].attempted_at)).toBeLessThan(Date.parse(log[1].attempted_at));
		expect(Date.parse(log[1].attempted_at) + log[1].duration_ms).toBeLessThanOrEqual(
			Date.parse(log[2].attempted_at),
		);
		expect(final.last_attempt_at).toBe(log[2].attempted_at);
	});

	it("with require_receipt, counts only a 2xx carrying the delivery's receipt: another 2xx is a failed attempt, retried", async () => {
		const response = await org.admin.post(`/orgs/${org.id}/webhooks`, {
			url: `${receiver.url}/receipts`,
			event_types: ['lab.created'],
			require_receipt: true,
		});
		expect(response.body.require_receipt).toBe(true);
		const hook = response.body as { id: string };
		const replies = [
			// n8n starting up answers every request so; a proxy's page, or another delivery's receipt.
			() => ({ status: 200, body: 'n8n is starting up. Please wait' }),
			() => ({ status: 200, headers: { 'webhook-receipt': 'another-delivery' } }),
		];
		receiver.reply = (delivery) =>
			replies.shift()?.() ?? {
				status: 200,
				headers: { 'webhook-receipt': String(delivery.headers['webhook-id']) },
			};
		await org.admin.post('/labs', { name: 'Receipted', tier: 'vm' });
		const delivered = await waitForDelivery(hook.id, (d) => d.status === 'succeeded');
		expect(delivered.attempt_log).toMatchObject([
			{
				status_code: 200,
				error:
					"HTTP 200 without this delivery's webhook-receipt (the endpoint requires one: another program answered): n8n is starting up. Please wait",
			},
			{
				status_code: 200,
				error: expect.stringContaining("without this delivery's webhook-receipt"),
			},
			{ status_code: 200, error: null },
		]);

		// Turned off, any 2xx is delivered again.
		const changed = await org.admin.patch(`/orgs/${org.id}/webhooks/${hook.id}`, {
			require_receipt: false,
		});
		expect(changed.body.require_receipt).toBe(false);
		receiver.reply = () => ({ status: 200 });
		await org.admin.post('/labs', { name: 'Unreceipted', tier: 'vm' });
		const [latest] = await eventually(async () => {
			const all = await deliveriesOf(hook.id);
			return all.length === 2 && all[0].status === 'succeeded' && all;
		}, 'the second delivery');
		expect(latest.attempts).toBe(1);
	});

	it('records a timeout as the error of the attempt', async () => {
		const hook = await subscribe(['lab.created']);
		receiver.reply = () => ({ status: 200, delayMs: 2_000 });
		await org.admin.post('/labs', { name: 'Slow', tier: 'vm' });
		await waitForDelivery(hook.id, (d) => d.attempts === 1);
		expect((await deliveriesOf(hook.id))[0]).toMatchObject({
			status: 'failed',
			last_status_code: null,
			last_error: 'Timed out after 300 ms',
		});
	});

	it('marks a delivery exhausted after the last retry of the schedule', async () => {
		const hook = await subscribe(['lab.created']);
		receiver.reply = () => ({ status: 503 });
		await org.admin.post('/labs', { name: 'Down', tier: 'vm' });
		await waitForDelivery(hook.id, (d) => d.status === 'exhausted');
		expect((await deliveriesOf(hook.id))[0]).toMatchObject({
			status: 'exhausted',
			attempts: 3,
			last_status_code: 503,
			next_attempt_at: null,
		});
		await server.webhooksIdle();
		expect(receiver.at(hook.path)).toHaveLength(3);
	});

	it('disables the endpoint on 410 Gone, records webhook.disabled (delivered to its subscribers), and sends it nothing more', async () => {
		const hook = await subscribe(['lab.created']);
		const watcher = await subscribe(['webhook.disabled']);
		receiver.reply = (delivery) => ({ status: delivery.path === hook.path ? 410 : 204 });
		await org.admin.post('/labs', { name: 'Gone 1', tier: 'vm' });
		await waitForDelivery(hook.id, (d) => d.status === 'exhausted');
		const listed = (await org.admin.get(`/orgs/${org.id}/webhooks`)).body.find(
			(w: { id: string }) => w.id === hook.id,
		);
		expect(listed.disabled_at).toEqual(expect.any(String));
		expect((await deliveriesOf(hook.id))[0]).toMatchObject({ attempts: 1, last_status_code: 410 });

		const disabled = (await org.admin.get(`/orgs/${org.id}/events`)).body.filter(
			(e: { type: string }) => e.type === 'webhook.disabled',
		);
		expect(disabled).toEqual([
			expect.objectContaining({
				actor: 'system',
				data: {
					webhook_id: hook.id,
					url: `${receiver.url}${hook.path}`,
					reason: 'The endpoint answered 410 Gone.',
				},
			}),
		]);
		await receiver.waitFor(() => receiver.at(watcher.path).length === 1);
		expect(payload(receiver.at(watcher.path)[0])).toMatchObject({
			id: disabled[0].id,
			type: 'webhook.disabled',
			org_id: org.id,
		});

		// The next event is kept for the disabled endpoint as given up, never sent (a recovery can send it
		// once the endpoint is enabled again): once every queued delivery had its attempt, it got nothing.
		await org.admin.post('/labs', { name: 'Gone 2', tier: 'vm' });
		await server.webhooksIdle();
		expect(receiver.at(hook.path)).toHaveLength(1);
		const [kept] = await deliveriesOf(hook.id);
		expect(kept).toMatchObject({
			event_type: 'lab.created',
			status: 'exhausted',
			attempts: 0,
			last_error: 'Not sent: the endpoint was disabled.',
			attempt_log: [],
		});
		expect(await deliveriesOf(hook.id)).toHaveLength(2);
	});

	it('never follows a redirect', async () => {
		const hook = await subscribe(['lab.created']);
		receiver.reply = (delivery) =>
			delivery.path === hook.path
				? { status: 302, headers: { location: `${receiver.url}/redirected` } }
				: { status: 204 };
		await org.admin.post('/labs', { name: 'Redirected', tier: 'vm' });
		// Its retries come 0.2 s apart: read it once it has had all three, whatever the machine's pace.
		const delivery = await waitForDelivery(hook.id, (d) => d.status === 'exhausted');
		expect(delivery).toMatchObject({
			attempts: 3,
			last_status_code: 302,
			last_error: 'HTTP 302 (redirects are not followed)',
		});
		expect(
			delivery.attempt_log.map((a: { status_code: number; error: string }) => [
				a.status_code,
				a.error,
			]),
		).toEqual(Array(3).fill([302, 'HTTP 302 (redirects are not followed)']));
		expect(receiver.at(hook.path)).toHaveLength(3);
		expect(receiver.at('/redirected')).toHaveLength(0);
	});

	it('reads at most 4 KB of a response', async () => {
		const hook = await subscribe(['lab.created']);
		receiver.reply = () => ({ status: 500, body: 'x'.repeat(1_000_000) });
		await org.admin.post('/labs', { name: 'Chatty', tier: 'vm' });
		await waitForDelivery(hook.id, (d) => d.attempts === 1);
		expect((await deliveriesOf(hook.id))[0].last_error).toBe(`HTTP 500: ${'x'.repeat(200)}`);
	});

	it('drops pending deliveries when the endpoint is deleted', async () => {
		const hook = await subscribe(['lab.created']);
		receiver.reply = () => ({ status: 500 });
		await org.admin.post('/labs', { name: 'Dropped', tier: 'vm' });
		await waitForDelivery(hook.id, (d) => d.status === 'failed');
		expect((await org.admin.delete(`/orgs/${org.id}/webhooks/${hook.id}`)).status).toBe(204);
		expect(
			server.db
				.prepare('SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?')
				.get(hook.id),
		).toEqual({ n: 0 });
		const before = receiver.at(hook.path).length;
		await server.webhooksIdle();
		expect(receiver.at(hook.path)).toHaveLength(before);
		expect((await org.admin.get(`/orgs/${org.id}/webhooks/${hook.id}/deliveries`)).status).toBe(
			404,
		);
	});

	it('sends a delivery to every subscribed endpoint of the organization, and none of another', async () => {
		const first = await subscribe(['lab.created']);
		const second = await subscribe(['lab.created']);
		const other = await createOrg(server);
		const theirs = await other.admin.post(`/orgs/${other.id}/webhooks`, {
			url: `${receiver.url}/theirs-${pathCounter}`,
			event_types: ['lab.created'],
		});
		await org.admin.post('/labs', { name: 'Fan out', tier: 'vm' });
		await receiver.waitFor(
			() => receiver.at(first.path).length === 1 && receiver.at(second.path).length === 1,
		);
		await server.webhooksIdle();
		expect(
			receiver.received.filter((d) => d.path === new URL(theirs.body.url).pathname),
		).toHaveLength(0);
	});

	it('sends again, on a new connection, a delivery whose kept-alive connection the receiver closed as it was taken', async () => {
		// A receiver that drops each connection as its second request arrives, unanswered: what a
		// receiver whose idle timeout ends as our next delivery is sent does.
		const connections: number[] = [];
		const dropping = createServer((req, res) => {
			const socket = req.socket as typeof req.socket & { served?: number };
			socket.served = (socket.served ?? 0) + 1;
			connections.push(socket.served);
			if (socket.served > 1) return void socket.destroy();
			req.resume().on('end', () => res.writeHead(204).end());
		});
		// Announced in each answer (`Keep-Alive: timeout=60`): the sender keeps the connection for
		// the next delivery however long this machine takes to send it.
		dropping.keepAliveTimeout = 60_000;
		await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
		try {
			const { port } = dropping.address() as AddressInfo;
			const hook = (
				await org.admin.post(`/orgs/${org.id}/webhooks`, {
					url: `http://127.0.0.1:${port}/kept-alive`,
					event_types: ['lab.created'],
				})
			).body;
			await org.admin.post('/labs', { name: 'First on the connection', tier: 'vm' });
			await waitForDelivery(hook.id, (d) => d.status === 'succeeded');
			await org.admin.post('/labs', { name: 'Second on it', tier: 'vm' });
			const second = await waitForDelivery(
				hook.id,
				(d) => d.status !== 'pending' || d.attempts > 0,
			);
			// The second was taken on the kept connection and dropped, then sent on a new one.
			expect(connections).toEqual([1, 2, 1]);
			expect(second).toMatchObject({ status: 'succeeded', attempts: 1, last_status_code: 204 });
		} finally {
			dropping.closeAllConnections();
			await new Promise((resolve) => dropping.close(resolve));
		}
	});

	async function waitForDelivery(webhookId: string, predicate: (delivery: any) => boolean) {
		return eventually(async () => {
			const [latest] = await deliveriesOf(webhookId);
			return latest && predicate(latest) ? latest : false;
		}, `a delivery of ${webhookId} to match`);
	}
});

describe('recording the answers of a pass', () => {
	it('records every other answer when one cannot be recorded, and reports that one', () => {
		const dir = mkdtempSync(join(tmpdir(), 'traininglab-record-'));
		const db = openDatabase(join(dir, 'db.sqlite'));
		try {
			const services = createServices(db, {
				allowInsecureWebhookUrls: true,
			});
			const { actor } = services.orgs.create({
				name: 'Record Org',
				admin: { email: 'r@record.test', name: 'R' },
			});
			services.webhookEndpoints.create(actor, {
				url: 'http://127.0.0.1:9/record',
				event_types: ['lab.created'],
			});
			services.labs.create(actor, { name: 'First', tier: 'vm' });
			services.labs.create(actor, { name: 'Second', tier: 'vm' });
			const outbox = outboxOn(db, { retryScheduleSeconds: [5] });
			const [poisoned, fine] = outbox.claimDue(room(10), 60_000);
			// An attempt 1 already in the log of the first: recording its attempt 1 breaks the key.
			db.prepare(
				`INSERT INTO webhook_delivery_attempts (delivery_seq, attempt, attempted_at, duration_ms)
				 VALUES (?, 1, '2026-01-01T00:00:00.000Z', 0)`,
			).run(poisoned.seq);
			const now = Date.now();
			const answer = (delivery: typeof fine) => ({
				delivery,
				outcome: answered(204),
				startedAt: now,
				endedAt: now + 3,
			});
			const failed = outbox.record([answer(poisoned), answer(fine)]);
			expect(failed.map((f) => f.answer.delivery.id)).toEqual([poisoned.id]);
			const status = (id: string) =>
				db.prepare('SELECT status, attempts FROM webhook_deliveries WHERE id = ?').get(id);
			expect(status(fine.id)).toEqual({ status: 'succeeded', attempts: 1 });
			// Not recorded: still claimed, so it is sent again once its claim runs out.
			expect(status(poisoned.id)).toEqual({ status: 'pending', attempts: 0 });
		} finally {
			db.close();
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
