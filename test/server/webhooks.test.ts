import { createOrg, type TestOrg, serverWithOrg } from '../support/fixtures.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

describe('webhook endpoints (strict URL policy)', () => {
	let server: TestServer;
	let org: TestOrg;
	beforeAll(async () => {
		({ server, org } = await serverWithOrg());
	});
	afterAll(() => server.stop());

	const create = (body: Record<string, unknown>) =>
		org.admin.post(`/orgs/${org.id}/webhooks`, { event_types: ['member.removed'], ...body });

	it('creates an endpoint on a public https address, with its secret shown once', async () => {
		const response = await create({
			url: 'https://93.184.215.14/hooks',
			event_types: ['member.removed', 'org.closed', 'member.removed'],
			description: 'Ops',
		});
		expect(response.status).toBe(201);
		expect(response.body).toEqual({
			id: expect.any(String),
			url: 'https://93.184.215.14/hooks',
			event_types: ['member.removed', 'org.closed'],
			description: 'Ops',
			created_at: expect.any(String),
			disabled_at: null,
			held_since: null,
			held_reason: null,
			require_receipt: false,
			previous_secret_expires_at: null,
			secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
		});
		expect(Buffer.from(response.body.secret.slice(6), 'base64')).toHaveLength(32);

		const list = await org.admin.get(`/orgs/${org.id}/webhooks`);
		expect(list.body).toEqual([
			{
				id: response.body.id,
				url: response.body.url,
				event_types: response.body.event_types,
				description: 'Ops',
				created_at: response.body.created_at,
				disabled_at: null,
				held_since: null,
				held_reason: null,
				require_receipt: false,
				previous_secret_expires_at: null,
			},
		]);
	});

	it('refuses the same URL twice in the organization with 409 url_taken', async () => {
		const response = await create({ url: 'https://93.184.215.14/hooks' });
		expect(response.status).toBe(409);
		expect(response.body.error.code).toBe('url_taken');
	});

	it.each([
		['plain http', 'http://93.184.215.14/hook'],
		['loopback', 'https://127.0.0.1/hook'],
		['loopback by name', 'https://localhost/hook'],
		['IPv6 loopback', 'https://[::1]/hook'],
		['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hook'],
		['private 10/8', 'https://10.1.2.3/hook'],
		['private 192.168/16', 'https://192.168.1.10/hook'],
		['private 172.16/12', 'https://172.20.0.1/hook'],
		['link-local metadata', 'https://169.254.169.254/latest'],
		['unique-local IPv6', 'https://[fd00::1]/hook'],
		['link-local IPv6', 'https://[fe80::1]/hook'],
		['multicast', 'https://224.0.0.1/hook'],
		['reserved', 'https://240.0.0.1/hook'],
		['unspecified', 'https://0.0.0.0/hook'],
		['hex loopback', 'https://0x7f.1/hook'],
		['an unresolvable host', 'https://no-such-host.invalid/hook'],
		['credentials in the URL', 'https://user:pass@93.184.215.14/hook'],
		['another scheme', 'ftp://93.184.215.14/hook'],
		['a relative URL', '/hook'],
		['a URL over 2048 characters', `https://93.184.215.14/${'a'.repeat(2048)}`],
	])('refuses %s with 400 validation_failed', async (_name, url) => {
		const response = await create({ url });
		expect(response.status).toBe(400);
		expect(response.body.error.code).toBe('validation_failed');
		expect(response.body.error.details[0].path).toBe('url');
	});

	it('refuses a change to a URL the allow-list refuses with 400, and changes nothing', async () => {
		const created = (await create({ url: 'https://93.184.215.18/hook' })).body;
		for (const url of [
			'https://127.0.0.1/hook',
			'http://93.184.215.18/plain',
			'https://10.1.2.3/x',
		]) {
			const response = await org.admin.patch(`/orgs/${org.id}/webhooks/${created.id}`, { url });
			expect(response.status).toBe(400);
			expect(response.body.error.details[0].path).toBe('url');
		}
		expect((await org.admin.get(`/orgs/${org.id}/webhooks/${created.id}`)).body.url).toBe(
			'https://93.184.215.18/hook',
		);
		const moved = await org.admin.patch(`/orgs/${org.id}/webhooks/${created.id}`, {
			url: 'https://93.184.215.19/hook',
		});
		expect(moved.status).toBe(200);
		expect(moved.body.url).toBe('https://93.184.215.19/hook');
	});

	it.each([
		['no event types', []],
		['an unknown event type', ['member.exploded']],
		['a string instead of a list', 'member.removed'],
	])('refuses %s with 400', async (_name, event_types) => {
		const response = await create({ url: 'https://93.184.215.15/hook', event_types });
		expect(response.status).toBe(400);
		expect(response.body.error.details[0].path).toMatch(/^event_types/);
	});

	it('returns one endpoint by id without its secret, and 404 once it is deleted', async () => {
		const created = (await create({ url: 'https://93.184.215.17/hook', description: 'Ops' })).body;
		const fetched = await org.admin.get(`/orgs/${org.id}/webhooks/${created.id}`);
		expect(fetched.status).toBe(200);
		const { secret: _secret, ...withoutSecret } = created;
		expect(fetched.body).toEqual(withoutSecret);
		expect(fetched.text).not.toContain(created.secret);
		await org.admin.delete(`/orgs/${org.id}/webhooks/${created.id}`);
		expect((await org.admin.get(`/orgs/${org.id}/webhooks/${created.id}`)).status).toBe(404);
	});

	it('deletes an endpoint and emits webhook.deleted', async () => {
		const created = (await create({ url: 'https://93.184.215.16/hook' })).body;
		expect((await org.admin.delete(`/orgs/${org.id}/webhooks/${created.id}`)).status).toBe(204);
		expect(
			(await org.admin.get(`/orgs/${org.id}/webhooks`)).body.map((w: { id: string }) => w.id),
		).not.toContain(created.id);
		expect((await org.admin.get(`/orgs/${org.id}/events?limit=1`)).body[0]).toMatchObject({
			type: 'webhook.deleted',
			data: { webhook_id: created.id, url: created.url },
		});
		expect((await org.admin.delete(`/orgs/${org.id}/webhooks/${created.id}`)).status).toBe(404);
		expect((await create({ url: 'https://93.184.215.16/hook' })).status).toBe(201);
	});
});

describe('webhook endpoints with WEBHOOK_ALLOW_INSECURE_URLS=true', () => {
	it('accepts http and loopback targets for local development', async () => {
		const server = await startTestServer({ WEBHOOK_ALLOW_INSECURE_URLS: 'true' });
		try {
			const org = await createOrg(server);
			const response = await org.admin.post(`/orgs/${org.id}/webhooks`, {
				url: 'http://127.0.0.1:9/hook',
				event_types: ['org.closed'],
			});
			expect(response.status).toBe(201);
		} finally {
			await server.stop();
		}
	});
});

describe('the number of webhook endpoints of an organization', () => {
	it('is at most 20: one more gets 409 webhook_limit_reached and is not created; deleting one makes room', async () => {
		const server = await startTestServer({ WEBHOOK_ALLOW_INSECURE_URLS: 'true' });
		try {
			const org = await createOrg(server);
			const create = (n: number) =>
				org.admin.post(`/orgs/${org.id}/webhooks`, {
					url: `http://127.0.0.1:9/hook-${n}`,
					event_types: ['org.closed'],
				});
			const created = [];
			for (let n = 1; n <= 20; n++) created.push((await create(n)).body);
			expect(created.every((endpoint) => endpoint.id)).toBe(true);
			const refused = await create(21);
			expect(refused.status).toBe(409);
			expect(refused.body).toEqual({
				error: {
					code: 'webhook_limit_reached',
					message:
						'This organization already has 20 webhook endpoints that are not held, the most it may have. Delete one it no longer needs first.',
				},
			});
			expect((await org.admin.get(`/orgs/${org.id}/webhooks`)).body).toHaveLength(20);
			// Another organization is not held back by this one's endpoints.
			const other = await createOrg(server);
			expect(
				(
					await other.admin.post(`/orgs/${other.id}/webhooks`, {
						url: 'http://127.0.0.1:9/hook-21',
						event_types: ['org.closed'],
					})
				).status,
			).toBe(201);
			await org.admin.delete(`/orgs/${org.id}/webhooks/${created[0].id}`);
			expect((await create(21)).status).toBe(201);
		} finally {
			await server.stop();
		}
	});
});
