import { createOrg, type TestOrg } from '../support/fixtures.ts';
import { Receiver } from '../support/receiver.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

// The dispatcher shares its slots by organization, then by endpoint: one organization whose many
// receivers hang cannot hold up another's deliveries.
let server: TestServer;
let receiver: Receiver;
beforeAll(async () => {
	receiver = await Receiver.start();
	server = await startTestServer({
		WEBHOOK_ALLOW_INSECURE_URLS: 'true',
		WEBHOOK_CONCURRENCY: '32',
		WEBHOOK_ORG_CONCURRENCY: '16',
		// Long enough that no attempt times out before the test lets it end.
		WEBHOOK_TIMEOUT_MS: '600000',
		RATE_LIMIT_REQUESTS: '100000',
	});
});
afterAll(async () => {
	await server.stop();
	await receiver.stop();
});

describe('webhook delivery across organizations', () => {
	it("delivers an organization's events while another's 20 endpoints hold every send they get", async () => {
		const stuck: TestOrg = await createOrg(server);
		const prompt: TestOrg = await createOrg(server);
		let release!: () => void;
		const released = new Promise<void>((resolve) => (release = resolve));
		receiver.reply = (delivery) =>
			delivery.path.startsWith('/stuck-') ? { status: 204, after: released } : { status: 204 };
		for (let n = 0; n < 20; n++)
			await stuck.admin.post(`/orgs/${stuck.id}/webhooks`, {
				url: `${receiver.url}/stuck-${n}`,
				event_types: ['lab.created'],
			});
		await prompt.admin.post(`/orgs/${prompt.id}/webhooks`, {
			url: `${receiver.url}/prompt`,
			event_types: ['lab.created'],
		});
		const stuckSends = () =>
			receiver.received.filter((delivery) => delivery.path.startsWith('/stuck-')).length;
		try {
			// 10 events: 200 deliveries of the stuck organization, more than every slot there is.
			for (let n = 0; n < 10; n++)
				await stuck.admin.post('/labs', { name: `Stuck ${n}`, tier: 'vm' });
			await receiver.waitFor(() => stuckSends() === 16);

			for (let n = 0; n < 20; n++)
				await prompt.admin.post('/labs', { name: `Prompt ${n}`, tier: 'vm' });
			// Every one arrives while the stuck organization's sends are all still unanswered.
			await receiver.waitFor(() => receiver.at('/prompt').length === 20);
			expect(stuckSends()).toBe(16);
		} finally {
			release();
		}
		await receiver.waitFor(() => stuckSends() === 200, 30_000);
		await server.webhooksIdle();
		for (let n = 0; n < 20; n++)
			expect(receiver.mostInFlight(`/stuck-${n}`)).toBeLessThanOrEqual(16);
	});
});
