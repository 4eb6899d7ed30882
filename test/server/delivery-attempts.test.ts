import { createOrg, serverWithOrg, type TestOrg } from '../support/fixtures.ts';
import { Receiver } from '../support/receiver.ts';
import type { TestServer } from '../support/test-server.ts';
import { eventually } from '../../tooling/eventually.ts';

// Why a delivery failed, as a person reads it: each attempt with what started it and the
// receiver's answer (status, the headers that say what answered, the start of its body).
let server: TestServer;
let org: TestOrg;
let receiver: Receiver;
beforeAll(async () => {
	receiver = await Receiver.start();
	({ server, org } = await serverWithOrg({
		WEBHOOK_ALLOW_INSECURE_URLS: 'true',
		WEBHOOK_RETRY_SCHEDULE_S: '3600', // no retry falls due during a test
	}));
});
afterAll(async () => {
	await server.stop();
	await receiver.stop();
});

let pathCounter = 0;
/** A new endpoint whose receiver answers every delivery with `reply`, and one test delivery to it. */
async function oneDelivery(reply: Receiver['reply'], url?: string) {
	const path = `/attempts-${++pathCounter}`;
	const previous = receiver.reply;
	receiver.reply = (delivery) => (delivery.path === path ? reply(delivery) : previous(delivery));
	const hook = await org.admin.post(`/orgs/${org.id}/webhooks`, {
		url: url ?? `${receiver.url}${path}`,
		event_types: ['lab.created'],
	});
	const base = `/orgs/${org.id}/webhooks/${hook.body.id}`;
	const sent = await org.admin.post(`${base}/test`, { event_type: 'lab.created' });
	const detailPath = `${base}/deliveries/${sent.body.id}`;
	const attempted = (count: number) =>
		eventually(async () => {
			const detail = await org.admin.get(detailPath);
			return detail.body.attempt_log.length === count && detail.body;
		}, `attempt ${count} recorded`);
	return { base, detailPath, attempted };
}

describe('GET …/deliveries/{deliveryId}', () => {
	it("keeps the first 4 KB of the receiver's answer, and says when there was more", async () => {
		const bodies = {
			exact: 'a'.repeat(4096),
			longer: 'b'.repeat(4097),
			// Two bytes a character: the 4 KB end in the middle of one, which is left out whole.
			accented: 'é'.repeat(3000),
		};
		for (const [name, body] of Object.entries(bodies)) {
			const { attempted } = await oneDelivery(() => ({ status: 500, body }));
			const [attempt] = (await attempted(1)).attempt_log;
			const kept = attempt.response.body as string;
			expect({ name, truncated: attempt.response.body_truncated }).toEqual({
				name,
				truncated: Buffer.byteLength(body) > 4096,
			});
			expect({ name, kept: body.startsWith(kept), bytes: Buffer.byteLength(kept) }).toEqual({
				name,
				kept: true,
				bytes: name === 'accented' ? 4096 : Math.min(4096, body.length),
			});
			expect(kept).not.toContain('\uFFFD');
		}
	});

	it('keeps the headers that say what answered and why, never cookies or credentials', async () => {
		const { attempted } = await oneDelivery(() => ({
			status: 503,
			body: '{"error":"maintenance"}',
			headers: {
				'content-type': 'application/json',
				'retry-after': '3600',
				'x-request-id': 'r'.repeat(600),
				'set-cookie': 'session=secret',
				'www-authenticate': 'Bearer realm="private"',
				'x-internal-token': 'secret',
			},
		}));
		const [attempt] = (await attempted(1)).attempt_log;
		expect(attempt).toMatchObject({
			attempt: 1,
			cause: 'test',
			status_code: 503,
			error: 'HTTP 503: {"error":"maintenance"}',
			response: { body: '{"error":"maintenance"}', body_truncated: false },
		});
		expect(Object.keys(attempt.response.headers).sort()).toEqual([
			'content-type',
			'date',
			'retry-after',
			'x-request-id',
		]);
		expect(attempt.response.headers['x-request-id']).toBe('r'.repeat(512));
		expect(JSON.stringify(attempt)).not.toContain('secret');
	});

	it("keeps a redirect's Location without the user name and password in it", async () => {
		const { attempted } = await oneDelivery(() => ({
			status: 302,
			headers: {
				location: 'https://admin:s3cret-pw@internal.example/moved?to=https://u:p@x.test/',
			},
		}));
		const [attempt] = (await attempted(1)).attempt_log;
		expect(attempt.response.headers.location).toBe(
			'https://internal.example/moved?to=https://x.test/',
		);
		expect(attempt.error).toBe('HTTP 302 (redirects are not followed)');
		expect(JSON.stringify(attempt)).not.toMatch(/s3cret|admin:|u:p@/);
	});

	it('has no answer when none came, and says what started each attempt', async () => {
		const { base, detailPath, attempted } = await oneDelivery(
			() => ({ status: 204 }),
			'http://127.0.0.1:9/nobody-listens',
		);
		const first = (await attempted(1)).attempt_log[0];
		expect(first).toMatchObject({ cause: 'test', status_code: null, response: null });
		expect(first.error).toMatch(/ECONNREFUSED/);

		await org.admin.post(`${detailPath}/resend`);
		await attempted(2);
		await org.admin.post(`${base}/recover`, { since: '2026-01-01T00:00:00Z' });
		const detail = await attempted(3);
		expect(detail.attempt_log.map((attempt: { cause: string }) => attempt.cause)).toEqual([
			'test',
			'resend',
			'recovery',
		]);
		// The list says what started each attempt too, without the answers.
		const [listed] = (await org.admin.get(`${base}/deliveries`)).body;
		expect(listed.attempt_log).toEqual(
			detail.attempt_log.map(({ response: _, ...attempt }: { response: unknown }) => attempt),
		);
	});

	it("is 404 for a delivery of another endpoint or another organization's", async () => {
		const { detailPath } = await oneDelivery(() => ({ status: 204 }));
		const deliveryId = detailPath.split('/').at(-1);
		const other = await org.admin.post(`/orgs/${org.id}/webhooks`, {
			url: `${receiver.url}/other`,
			event_types: ['lab.created'],
		});
		const wrongEndpoint = await org.admin.get(
			`/orgs/${org.id}/webhooks/${other.body.id}/deliveries/${deliveryId}`,
		);
		expect(wrongEndpoint.status).toBe(404);
		expect(wrongEndpoint.body.error.code).toBe('not_found');
		const stranger = await createOrg(server);
		expect((await stranger.admin.get(detailPath.replace(org.id, stranger.id))).status).toBe(404);
		expect((await stranger.admin.get(detailPath)).status).toBe(404);
	});
});
