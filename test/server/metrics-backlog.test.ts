import {
	KEPT_FROM_WAITING,
	WAITING_PER_SECOND_KEPT,
} from '../../server/src/observability/backlog-reading.ts';
import { parseExposition, total } from '../../tooling/prometheus-text.ts';
import { serverWithOrg, type TestOrg } from '../support/fixtures.ts';
import { ManualClock } from '../support/manual-clock.ts';
import type { TestServer } from '../support/test-server.ts';

// A large backlog's gauges are read at most once a second per 50,000 waiting, the count walking
// each waiting delivery; a small one's at every scrape (metrics.test.ts reads those back exactly).
const TOKEN = 'metrics-token-0123456789';
const clock = new ManualClock();
let server: TestServer;
let org: TestOrg;
let endpointId: string;

beforeAll(async () => {
	({ server, org } = await serverWithOrg(
		{ WEBHOOK_ALLOW_INSECURE_URLS: 'true', METRICS_ENABLED: 'true', METRICS_TOKEN: TOKEN },
		undefined,
		{ clock },
	));
	// Held: its deliveries wait, none is sent.
	const created = await org.admin.post(`/orgs/${org.id}/webhooks`, {
		url: 'http://127.0.0.1:9/held',
		event_types: ['session.created'],
	});
	expect(created.status).toBe(201);
	endpointId = created.body.id;
	expect(
		(await org.admin.patch(`/orgs/${org.id}/webhooks/${endpointId}`, { held: true })).status,
	).toBe(200);
}, 60_000);
afterAll(() => server.stop());

async function backlog() {
	const response = await fetch(`${new URL(server.url).origin}/metrics`, {
		headers: { authorization: `Bearer ${TOKEN}` },
	});
	expect(response.status).toBe(200);
	const samples = parseExposition(await response.text());
	return {
		waiting: total(samples, 'traininglab_webhook_deliveries_waiting'),
		oldestAge: total(samples, 'traininglab_webhook_oldest_waiting_delivery_age_seconds'),
	};
}

const createSession = async () =>
	expect(
		(
			await org.admin.post('/sessions', {
				title: 'Waiting',
				lab_version_id: org.publishedVersionId,
				capacity: 20,
			})
		).status,
	).toBe(201);

it('reads a small backlog afresh at every scrape', async () => {
	await createSession();
	expect(await backlog()).toEqual({ waiting: 1, oldestAge: 0 });
	clock.advance(5_000);
	await createSession();
	expect(await backlog()).toEqual({ waiting: 2, oldestAge: 5 });
});

it('keeps a large backlog’s reading a second per 50,000 waiting, its oldest age still moving', async () => {
	// Queued through the domain services, as the API would (minutes over HTTP), a transaction of
	// 500 at a time: in one, this process's event loop stalled past the server's keep-alive timeout
	// in CI, and the next request went out on a connection being closed (ECONNRESET).
	const me = (await org.admin.get('/me')).body as { user: { id: string; email: string } };
	const actor = { orgId: org.id, userId: me.user.id, email: me.user.email, role: 'admin' as const };
	const waiting = KEPT_FROM_WAITING;
	for (let queued = 2; queued < waiting; ) {
		const upTo = Math.min(waiting, queued + 500);
		server.db.transaction(() => {
			for (; queued < upTo; queued++)
				server.services.sessions.create(actor, {
					title: `Seeded ${queued}`,
					lab_version_id: org.publishedVersionId,
					capacity: 20,
				});
		})();
		await new Promise(setImmediate);
	}
	expect(await backlog()).toEqual({ waiting, oldestAge: 5 });

	const keptMs = (waiting / WAITING_PER_SECOND_KEPT) * 1000;
	clock.advance(keptMs - 1);
	await createSession();
	expect(await backlog()).toEqual({
		waiting,
		oldestAge: expect.closeTo(5 + (keptMs - 1) / 1000, 6),
	});

	clock.advance(1);
	expect(await backlog()).toEqual({
		waiting: waiting + 1,
		oldestAge: expect.closeTo(5 + keptMs / 1000, 6),
	});
}, 60_000);

it('reads a large backlog afresh when the clock steps back', async () => {
	// The large backlog the test before queued: a reading that would otherwise be kept.
	const before = await backlog();
	expect(before.waiting).toBeGreaterThanOrEqual(KEPT_FROM_WAITING);
	clock.advance(-1_000);
	await createSession();
	expect(await backlog()).toEqual({
		waiting: before.waiting + 1,
		oldestAge: expect.closeTo(before.oldestAge - 1, 6),
	});
}, 60_000);
