import { generateApiKey } from '../../server/src/lib/api-key.ts';
import { createOrg, type TestOrg, serverWithOrg } from '../support/fixtures.ts';
import { type TestServer } from '../support/test-server.ts';

let server: TestServer;
let org: TestOrg;
beforeAll(async () => {
	({ server, org } = await serverWithOrg({}, 'Auth Org'));
});
afterAll(() => server.stop());

function expectUnauthorized(response: { status: number; headers: Headers; body: any }) {
	expect(response.status).toBe(401);
	expect(response.headers.get('www-authenticate')).toBe('Bearer');
	expect(response.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
}

describe('authentication', () => {
	it('GET /me returns the user, organization and role of the key', async () => {
		const response = await org.admin.get('/me');
		expect(response.status).toBe(200);
		expect(response.body).toEqual({
			user: { id: org.adminUserId, email: 'admin@auth-org.test', name: 'Ada Admin' },
			org: { id: org.id, name: 'Auth Org', slug: 'auth-org' },
			role: 'admin',
		});
		expect((await org.trainer.get('/me')).body.role).toBe('trainer');
	});

	it.each([
		['no Authorization header', { key: null }],
		['another scheme', { key: null, headers: { authorization: 'Basic dXNlcjpwYXNz' } }],
		['Bearer without a key', { key: null, headers: { authorization: 'Bearer ' } }],
		['a malformed key', { key: 'tlk_short' }],
		['a key with a wrong checksum', { key: 'tlk_' + 'a'.repeat(38) }],
		['a well-formed unknown key', { key: generateApiKey() }],
	])('refuses %s with 401 unauthorized', async (_name, options) => {
		expectUnauthorized(await org.admin.get('/me', options));
	});

	it('says the key is invalid or revoked', async () => {
		const response = await org.admin.get('/me', { key: generateApiKey() });
		expect(response.body.error.message).toMatch(/invalid or revoked/);
	});

	it('never accepts a key in the URL', async () => {
		const key = org.admin.key!;
		for (const name of ['api_key', 'key', 'access_token']) {
			expectUnauthorized(await org.admin.get(`/me?${name}=${key}`, { key: null }));
		}
	});

	it('refuses a revoked key at once, on the very next request', async () => {
		const created = (
			await org.admin.post(`/orgs/${org.id}/api-keys`, { name: 'short-lived', role: 'trainer' })
		).body;
		const client = org.admin.as(created.key);
		expect((await client.get('/me')).status).toBe(200);
		expect((await org.admin.delete(`/orgs/${org.id}/api-keys/${created.id}`)).status).toBe(204);
		expectUnauthorized(await client.get('/me'));
	});

	it('lets an admin key act only as trainer while its user is a trainer', async () => {
		const fresh = await createOrg(server);
		await fresh.admin.patch(`/orgs/${fresh.id}/members/${fresh.trainerUserId}`, { role: 'admin' });
		const promoted = fresh.trainer; // the trainer's key has role trainer: still a trainer
		expect((await promoted.get('/me')).body.role).toBe('trainer');
		const adminKeyOfSecondAdmin = fresh.admin.as(
			server.services.apiKeys.create(
				{ orgId: fresh.id, userId: fresh.trainerUserId, email: fresh.trainerEmail, role: 'admin' },
				{ name: 'second admin', role: 'admin' },
			).key,
		);
		expect((await adminKeyOfSecondAdmin.get('/me')).body.role).toBe('admin');

		await fresh.admin.patch(`/orgs/${fresh.id}/members/${fresh.trainerUserId}`, {
			role: 'trainer',
		});
		expect((await adminKeyOfSecondAdmin.get('/me')).body.role).toBe('trainer');
		expect((await adminKeyOfSecondAdmin.get(`/orgs/${fresh.id}/api-keys`)).status).toBe(403);
	});

	it('does not need a key for /healthz and the OpenAPI document', async () => {
		expect(await (await fetch(server.url.replace('/api/v1', '/healthz'))).json()).toEqual({
			status: 'ok',
		});
		expect((await org.admin.get('/openapi.json', { key: null })).status).toBe(200);
	});
});
