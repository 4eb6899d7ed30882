import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { type TestOrg, serverWithOrg } from '../support/fixtures.ts';
import { type TestServer } from '../support/test-server.ts';

let server: TestServer;
let org: TestOrg;
beforeAll(async () => {
	({ server, org } = await serverWithOrg());
});
afterAll(() => server.stop());

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
function base62(value: number, width: number): string {
	let out = '';
	for (let rest = value; rest > 0; rest = Math.floor(rest / 62)) out = BASE62[rest % 62] + out;
	return out.padStart(width, '0');
}

describe('API keys', () => {
	it('creates a key in the documented format, shown once, stored only as a SHA-256 hash', async () => {
		const response = await org.admin.post(`/orgs/${org.id}/api-keys`, {
			name: 'CI',
			role: 'trainer',
		});
		expect(response.status).toBe(201);
		const { key, prefix } = response.body;
		expect(response.body).toEqual({
			id: expect.any(String),
			name: 'CI',
			prefix: key.slice(0, 12),
			role: 'trainer',
			created_at: expect.any(String),
			revoked_at: null,
			key: expect.stringMatching(/^tlk_[0-9A-Za-z]{38}$/),
		});
		expect(key.slice(36)).toBe(base62(crc32(key.slice(4, 36)), 6));
		expect(prefix.startsWith('tlk_')).toBe(true);

		const row = server.db
			.prepare('SELECT * FROM api_keys WHERE id = ?')
			.get(response.body.id) as Record<string, unknown>;
		expect(row.key_hash).toEqual(createHash('sha256').update(key).digest());
		expect(JSON.stringify(Object.values(row).map(String))).not.toContain(key);
		expect((await org.admin.as(key).get('/me')).body.role).toBe('trainer');
	});

	it('lists keys without the key or any hash', async () => {
		const response = await org.admin.get(`/orgs/${org.id}/api-keys`);
		expect(response.status).toBe(200);
		for (const item of response.body) {
			expect(Object.keys(item).sort()).toEqual([
				'created_at',
				'id',
				'name',
				'prefix',
				'revoked_at',
				'role',
			]);
		}
	});

	it('refuses a name taken by another active key, and frees it once that key is revoked', async () => {
		const first = (
			await org.admin.post(`/orgs/${org.id}/api-keys`, { name: 'Deploy', role: 'admin' })
		).body;
		const taken = await org.admin.post(`/orgs/${org.id}/api-keys`, {
			name: 'deploy',
			role: 'admin',
		});
		expect(taken.status).toBe(409);
		expect(taken.body.error.code).toBe('name_taken');
		await org.admin.delete(`/orgs/${org.id}/api-keys/${first.id}`);
		expect(
			(await org.admin.post(`/orgs/${org.id}/api-keys`, { name: 'Deploy', role: 'admin' })).status,
		).toBe(201);
	});

	it('rejects a role other than admin or trainer with 400', async () => {
		for (const role of ['owner', '', null, 1]) {
			const response = await org.admin.post(`/orgs/${org.id}/api-keys`, { name: 'x', role });
			expect(response.status).toBe(400);
			expect(response.body.error.code).toBe('validation_failed');
		}
	});

	it('revokes: the key stays listed with revoked_at; revoking again is 204 with no second event', async () => {
		const created = (
			await org.admin.post(`/orgs/${org.id}/api-keys`, { name: 'To revoke', role: 'trainer' })
		).body;
		expect((await org.admin.delete(`/orgs/${org.id}/api-keys/${created.id}`)).status).toBe(204);
		expect((await org.admin.delete(`/orgs/${org.id}/api-keys/${created.id}`)).status).toBe(204);
		const listed = (await org.admin.get(`/orgs/${org.id}/api-keys`)).body.find(
			(k: { id: string }) => k.id === created.id,
		);
		expect(listed.revoked_at).toEqual(expect.any(String));
		const events = (await org.admin.get(`/orgs/${org.id}/events`)).body.filter(
			(e: { type: string; data: { key_id: string } }) =>
				e.type === 'api_key.revoked' && e.data.key_id === created.id,
		);
		expect(events).toHaveLength(1);
		expect(
			(await org.admin.delete(`/orgs/${org.id}/api-keys/00000000-0000-4000-8000-000000000000`))
				.status,
		).toBe(404);
	});
});
