import fc from 'fast-check';
import { signatureProblem } from '../../nodes/TrainingLabTrigger/signature';
import { createOrg, sessionInput } from '../support/fixtures';
import { ROUTES, pathFor, resourcesOf } from '../support/route-table';
import { startTestServer } from '../support/test-server';

describe('secrets', () => {
	it('never appear in logs, error messages, events or list responses', async () => {
		const server = await startTestServer({
			WEBHOOK_ALLOW_INSECURE_URLS: 'true',
			RATE_LIMIT_REQUESTS: '100000000',
		});
		try {
			const org = await createOrg(server);
			const secrets: string[] = [org.admin.key!, org.trainer.key!];
			const seen: string[] = []; // every response body except the one 201 that shows a secret once
			const record = (response: { text: string }) => seen.push(response.text);
			for (let i = 0; i < 5; i++) {
				const key = await org.admin.post(`/orgs/${org.id}/api-keys`, {
					name: `k${i}`,
					role: i % 2 ? 'admin' : 'trainer',
				});
				secrets.push(key.body.key);
				const webhook = await org.admin.post(`/orgs/${org.id}/webhooks`, {
					url: `http://127.0.0.1:9/${i}`,
					event_types: ['member.removed'],
				});
				secrets.push(webhook.body.secret);
				// Replays of the creations, and creations that fail, must not show them again.
				record(
					await org.admin.post(`/orgs/${org.id}/api-keys`, { name: `k${i}`, role: 'trainer' }),
				);
				record(
					await org.admin.post(
						`/orgs/${org.id}/api-keys`,
						{ name: `k${i}`, role: i % 2 ? 'admin' : 'trainer' },
						{ headers: { 'idempotency-key': `k${i}` } },
					),
				);
				record(
					await org.admin.post(
						`/orgs/${org.id}/api-keys`,
						{ name: `k${i}`, role: i % 2 ? 'admin' : 'trainer' },
						{ headers: { 'idempotency-key': `k${i}` } },
					),
				);
				record(
					await org.admin.post(`/orgs/${org.id}/webhooks`, {
						url: `http://127.0.0.1:9/${i}`,
						event_types: ['member.removed'],
					}),
				);
			}
			// Keys used where they are not keys: in bodies, queries and headers of failing requests.
			for (const secret of secrets) {
				record(
					await org.admin.post('/sessions', {
						title: 'x',
						lab_version_id: secret,
						capacity: secret,
					}),
				);
				record(
					await org.admin.get(
						`/sessions?cursor=${encodeURIComponent(secret)}&limit=${encodeURIComponent(secret)}`,
					),
				);
				record(await org.admin.get(`/sessions/${encodeURIComponent(secret)}`));
				record(await org.admin.get('/me', { key: `${secret}x` }));
				record(
					await org.admin.get('/me', { headers: { authorization: `Basic ${secret}` }, key: null }),
				);
				record(await org.admin.post('/join', { join_code: secret, email: secret, name: secret }));
			}
			// Every read of the API, lists included, and the whole activity log.
			const ids = await resourcesOf(org);
			for (const route of ROUTES.filter((r) => r.method === 'get'))
				record(await org.admin.get(`${pathFor(route, ids)}?limit=200`));
			record(await org.admin.post('/sessions', sessionInput(org, { capacity: 0 })));
			const events = server.db.prepare('SELECT data, actor FROM events').all();
			const everything = [...seen, JSON.stringify(events), server.logs.join('\n')].join('\n');
			for (const secret of secrets) {
				expect(everything.includes(secret)).toBe(false);
				expect(everything.includes(secret.slice(4, 36))).toBe(false); // nor the random part alone
			}
			expect(secrets).toHaveLength(12);
		} finally {
			await server.stop();
		}
	});
});

describe("the trigger's signature verification", () => {
	const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
	const headerValue = fc.oneof(
		fc.string(),
		fc.string({ unit: 'binary', maxLength: 200 }),
		fc.array(fc.string(), { maxLength: 3 }),
		fc.constantFrom(
			undefined,
			'',
			'v1,',
			'v1',
			',',
			'v1,,',
			'v1,=',
			' v1,AAAA',
			'v1,'.repeat(1000),
			`${Date.now()}`,
			'-1',
			'1e10',
			'99999999999999999999',
			'NaN',
		),
	);

	it('refuses every malformed header shape without throwing (2,000 generated cases)', () => {
		fc.assert(
			fc.property(
				headerValue,
				headerValue,
				headerValue,
				fc.oneof(
					fc.string(),
					fc.uint8Array().map((bytes) => Buffer.from(bytes)),
				),
				(id, timestamp, signature, body) => {
					const headers = {
						'webhook-id': id,
						'webhook-timestamp': timestamp,
						'webhook-signature': signature,
					} as Record<string, string | string[] | undefined>;
					const problem = signatureProblem([secret], headers, body, Math.floor(Date.now() / 1000));
					expect(typeof problem).toBe('string');
				},
			),
			{ numRuns: 2_000 },
		);
	});
});
