import type { Actor } from '../../server/src/core/actor.ts';
import { serverWithOrg, type TestOrg } from '../support/fixtures.ts';
import { Receiver } from '../support/receiver.ts';
import type { TestServer } from '../support/test-server.ts';
import { eventually } from '../../tooling/eventually.ts';

// The outbox runs on a thread of its own. Killed in the middle of a drain, it is started again by
// the server: every delivery arrives, and none whose delivery was recorded is sent again.
const EVENTS = 2000;
let server: TestServer;
let org: TestOrg;
let receiver: Receiver;
beforeAll(async () => {
	receiver = await Receiver.start();
	({ server, org } = await serverWithOrg({
		WEBHOOK_ALLOW_INSECURE_URLS: 'true',
		// A receiver that answers in 20 ms: the drain of the burst takes seconds.
		WEBHOOK_TIMEOUT_MS: '10000',
	}));
});
afterAll(async () => {
	await server.stop();
	await receiver.stop();
});

it(`killed during a drain of ${EVENTS}: every delivery arrives, none recorded as delivered is sent again`, async () => {
	receiver.reply = () => ({ status: 204, delayMs: 20 });
	await org.admin.post(`/orgs/${org.id}/webhooks`, {
		url: `${receiver.url}/drain`,
		event_types: ['lab.created'],
	});
	const actor: Actor = {
		orgId: org.id,
		userId: org.adminUserId,
		email: `admin@${org.slug}.test`,
		role: 'admin',
	};
	for (let i = 0; i < EVENTS; i++)
		server.services.labs.create(actor, { name: `Drained ${i}`, tier: 'vm' });

	await receiver.waitFor(() => receiver.at('/drain').length >= EVENTS / 4, 60_000);
	await server.killOutboxThread!();
	// What the database says was delivered when the thread died: those must not be sent again.
	const recordedDelivered = server.db
		.prepare(
			`SELECT d.event_id FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
       WHERE d.status = 'succeeded' AND e.type = 'lab.created'`,
		)
		.pluck()
		.all() as string[];
	expect(recordedDelivered.length).toBeGreaterThan(0);
	expect(recordedDelivered.length).toBeLessThan(EVENTS);

	const eventIds = server.db
		.prepare(`SELECT event_id FROM webhook_deliveries`)
		.pluck()
		.all() as string[];
	expect(eventIds).toHaveLength(EVENTS);
	const timesReceived = () => {
		const times = new Map<string, number>();
		for (const delivery of receiver.at('/drain')) {
			const id = delivery.headers['webhook-id'] as string;
			times.set(id, (times.get(id) ?? 0) + 1);
		}
		return times;
	};
	await eventually(
		() => {
			const times = timesReceived();
			return eventIds.every((id) => times.has(id));
		},
		'every event delivered after the restart',
		{
			timeoutMs: 120_000,
			explain: () =>
				`received ${timesReceived().size} of ${eventIds.length}; server log:\n${server.logs.join('\n')}`,
		},
	);
	await server.webhooksIdle();
	const times = timesReceived();
	expect(eventIds.filter((id) => !times.has(id))).toEqual([]);
	expect(recordedDelivered.filter((id) => times.get(id) !== 1)).toEqual([]);
	const again = eventIds.filter((id) => (times.get(id) ?? 0) > 1);
	// Only those in flight when it died can come again: at most the sends it had going to the endpoint.
	expect(again.length).toBeLessThanOrEqual(16);
	expect(
		server.db
			.prepare(`SELECT count(*) FROM webhook_deliveries WHERE status != 'succeeded'`)
			.pluck()
			.get(),
	).toBe(0);
	expect(server.logs.join('\n')).toMatch(
		/the webhook outbox thread stopped \(exit code 1\) with about \d+ sends in flight; starting it again/,
	);
	console.log(
		`outbox thread killed after ${recordedDelivered.length} of ${EVENTS} deliveries were recorded; ` +
			`${again.length} in flight then were sent again`,
	);
}, 180_000);

it('a thread that dies again as it starts waits before its next start; meanwhile /metrics answers and the server stops', async () => {
	const { server: dying } = await serverWithOrg({ METRICS_ENABLED: 'true' });
	try {
		await dying.killOutboxThread!();
		// The thread started again at once dies too, before it has settled.
		await dying.killOutboxThread!();
		expect(
			dying.logs.filter((line) => line.startsWith('the webhook outbox thread stopped')),
		).toEqual([
			expect.stringMatching(/; starting it again$/),
			expect.stringMatching(/; starting it again in 1 s$/),
		]);
		// While no thread runs, a scrape gets the request side's metrics without waiting for it.
		const scrape = await fetch(`${new URL(dying.url).origin}/metrics`);
		expect(scrape.status).toBe(200);
		expect(await scrape.text()).toContain('traininglab_webhook_deliveries_waiting');
	} finally {
		// And a stop does not wait for a thread that does not run.
		await dying.stop();
	}
});
