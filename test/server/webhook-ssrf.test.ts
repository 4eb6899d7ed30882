import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOrg } from '../support/fixtures.ts';
import { ApiClient } from '../../tooling/api/client.ts';
import { Receiver } from '../support/receiver.ts';
import { startTestServer } from '../support/test-server.ts';

// Endpoints are registered while insecure URLs are allowed, then a strict server on the same
// database must refuse to connect to them: the guard also holds at delivery time.
it('refuses at delivery time to send over http or to loopback addresses, by literal or by name', async () => {
	const dir = mkdtempSync(join(tmpdir(), 'traininglab-ssrf-'));
	const receiver = await Receiver.start();
	const env = { DATABASE_PATH: join(dir, 'db.sqlite'), WEBHOOK_RETRY_SCHEDULE_S: '60' };
	const port = new URL(receiver.url).port;
	const targets = {
		http: `${receiver.url}/plain`,
		literal: `https://127.0.0.1:${port}/literal`,
		name: `https://localhost:${port}/name`,
	};
	try {
		const lenient = await startTestServer({ ...env, WEBHOOK_ALLOW_INSECURE_URLS: 'true' });
		const org = await createOrg(lenient);
		const ids: Record<string, string> = {};
		for (const [name, url] of Object.entries(targets)) {
			ids[name] = (
				await org.admin.post(`/orgs/${org.id}/webhooks`, { url, event_types: ['lab.created'] })
			).body.id;
		}
		await lenient.stop();

		const strict = await startTestServer(env);
		try {
			const admin = new ApiClient(strict.url, org.admin.key);
			await admin.post('/labs', { name: 'Bait', tier: 'vm' });
			await strict.webhooksIdle();
			const errors: Record<string, string> = {};
			for (const [name, id] of Object.entries(ids)) {
				const [delivery] = (await admin.get(`/orgs/${org.id}/webhooks/${id}/deliveries`)).body;
				if (delivery?.attempts === 1) errors[name] = delivery.last_error;
			}
			expect(errors).toEqual({
				http: 'Refused: webhook URLs must use https',
				literal: 'Refused: 127.0.0.1 is not a public address',
				name: expect.stringMatching(
					/^Refused: localhost resolves to non-public address (127\.0\.0\.1|::1)$/,
				),
			});
			expect(receiver.received).toHaveLength(0);
		} finally {
			await strict.stop();
		}
	} finally {
		await receiver.stop();
		rmSync(dir, { recursive: true, force: true });
	}
});
