import { parseExposition, total } from '../../tooling/prometheus-text.ts';
import { serverWithOrg, type TestOrg } from '../support/fixtures.ts';
import { ManualClock } from '../support/manual-clock.ts';
import type { TestServer } from '../support/test-server.ts';

// The backlog gauges at every scrape, as deliveries wait, are given up, put back and dropped with
// their endpoint: read from the row that triggers keep for each endpoint (backlog-triggers.test.ts
// checks those rows through every kind of change).
// metrics.test.ts reads them after deliveries are sent.
const TOKEN = 'metrics-token-0123456789';
let clock: ManualClock;
let server: TestServer;
let org: TestOrg;

beforeEach(async () => {
	clock = new ManualClock();
	({ server, org } = await serverWithOrg(
		{ WEBHOOK_ALLOW_INSECURE_URLS: 'true', METRICS_ENABLED: 'true', METRICS_TOKEN: TOKEN },
		undefined,
		{ clock },
	));
}, 60_000);
afterEach(() => server.stop());

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

/** A held endpoint (nothing is sent to it: its deliveries wait) for `session.created`; its id. */
async function heldEndpoint(): Promise<string> {
	const created = await org.admin.post(`/orgs/${org.id}/webhooks`, {
		url: 'http://127.0.0.1:9/held',
		event_types: ['session.created'],
	});
	expect(created.status).toBe(201);
	await hold(created.body.id, true);
	return created.body.id;
}

async function hold(endpointId: string, held: boolean, extra: object = {}) {
	const response = await org.admin.patch(`/orgs/${org.id}/webhooks/${endpointId}`, {
		held,
		...extra,
	});
	expect(response.status).toBe(200);
}

/** A session created: one delivery queued for each endpoint. */
async function createSession() {
	const created = await org.admin.post('/sessions', {
		title: 'Waiting',
		lab_version_id: org.publishedVersionId,
		capacity: 20,
	});
	expect(created.status).toBe(201);
}

it('counts the waiting deliveries and the oldest one’s age at every scrape, however they change', async () => {
	const endpointId = await heldEndpoint();
	expect(await backlog()).toEqual({ waiting: 0, oldestAge: 0 });
	await createSession();
	clock.advance(5_000);
	await createSession();
	expect(await backlog()).toEqual({ waiting: 2, oldestAge: 5 });

	// Released, skipping what it kept: both given up (recoverably). From now on its deliveries are
	// sent, refused, and wait for a retry that the clock, standing still, never brings.
	await hold(endpointId, false, { skip_held_events: true });
	expect(await backlog()).toEqual({ waiting: 0, oldestAge: 0 });

	clock.advance(5_000);
	await createSession();
	clock.advance(1_000);
	expect(await backlog()).toEqual({ waiting: 1, oldestAge: 1 });

	// The first delivery, older than the one last read as the oldest, put back to waiting.
	const deliveries = await org.admin.get(`/orgs/${org.id}/webhooks/${endpointId}/deliveries`);
	expect(deliveries.status).toBe(200);
	// Newest first.
	const first = (deliveries.body as Array<{ id: string }>).at(-1)!;
	const resent = await org.admin.post(
		`/orgs/${org.id}/webhooks/${endpointId}/deliveries/${first.id}/resend`,
	);
	expect(resent.status).toBe(202);
	expect(await backlog()).toEqual({ waiting: 2, oldestAge: 11 });

	expect((await org.admin.delete(`/orgs/${org.id}/webhooks/${endpointId}`)).status).toBe(204);
	expect(await backlog()).toEqual({ waiting: 0, oldestAge: 0 });
}, 60_000);

it('finds the oldest when newer deliveries took the numbers of deleted ones', async () => {
	// A delivery given up, then one waiting: the oldest found is the second.
	const first = await heldEndpoint();
	await createSession();
	await hold(first, false, { skip_held_events: true });
	await hold(first, true);
	await createSession();
	expect(await backlog()).toEqual({ waiting: 1, oldestAge: 0 });

	// Both dropped with their endpoint: the next delivery is numbered like the first of them.
	expect((await org.admin.delete(`/orgs/${org.id}/webhooks/${first}`)).status).toBe(204);
	await heldEndpoint();
	await createSession();
	clock.advance(2_000);
	expect(await backlog()).toEqual({ waiting: 1, oldestAge: 2 });
}, 60_000);
