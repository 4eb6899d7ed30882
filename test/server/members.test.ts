import { createOrg, type TestOrg } from '../support/fixtures.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let server: TestServer;
beforeAll(async () => {
	server = await startTestServer();
});
afterAll(() => server.stop());

async function latestEvent(org: TestOrg) {
	return (await org.admin.get(`/orgs/${org.id}/events?limit=1`)).body[0];
}

describe('members', () => {
	let org: TestOrg;
	beforeAll(async () => {
		org = await createOrg(server);
	});

	it('lists members in join order with the Member shape, to admins and trainers', async () => {
		for (const client of [org.admin, org.trainer]) {
			const response = await client.get(`/orgs/${org.id}/members`);
			expect(response.status).toBe(200);
			expect(response.body.map((m: { role: string }) => m.role)).toEqual([
				'admin',
				'trainer',
				'trainer',
			]);
			expect(Object.keys(response.body[0]).sort()).toEqual(['email', 'name', 'role', 'user_id']);
		}
	});

	it('adds a member with a lower-cased e-mail and emits member.added', async () => {
		const response = await org.admin.post(`/orgs/${org.id}/members`, {
			email: 'New.Person@Example.test',
			name: ' New Person ',
			role: 'trainer',
		});
		expect(response.status).toBe(201);
		expect(response.body).toEqual({
			user_id: expect.any(String),
			email: 'new.person@example.test',
			name: 'New Person',
			role: 'trainer',
		});
		expect(await latestEvent(org)).toMatchObject({ type: 'member.added', data: response.body });

		const duplicate = await org.admin.post(`/orgs/${org.id}/members`, {
			email: 'new.person@example.test',
			name: 'Again',
			role: 'admin',
		});
		expect(duplicate.status).toBe(409);
		expect(duplicate.body.error.code).toBe('already_member');
	});

	it.each([
		[{ email: 'x@example.test', name: 'X', role: 'owner' }, 'role'],
		[{ email: 'nope', name: 'X', role: 'trainer' }, 'email'],
		[{ email: 'x@example.test', name: '', role: 'trainer' }, 'name'],
	])('rejects an invalid member %j with 400', async (body, field) => {
		const response = await org.admin.post(`/orgs/${org.id}/members`, body);
		expect(response.status).toBe(400);
		expect(response.body.error.details[0].path).toBe(field);
	});

	it('changes a role, emits member.role_changed once, and treats the same role as a no-op', async () => {
		const member = (
			await org.admin.post(`/orgs/${org.id}/members`, {
				email: 'promote@example.test',
				name: 'P',
				role: 'trainer',
			})
		).body;
		const promoted = await org.admin.patch(`/orgs/${org.id}/members/${member.user_id}`, {
			role: 'admin',
		});
		expect(promoted.status).toBe(200);
		expect(promoted.body).toMatchObject({ user_id: member.user_id, role: 'admin' });
		const event = await latestEvent(org);
		expect(event).toMatchObject({
			type: 'member.role_changed',
			data: { user_id: member.user_id, from: 'trainer', to: 'admin' },
		});

		const same = await org.admin.patch(`/orgs/${org.id}/members/${member.user_id}`, {
			role: 'admin',
		});
		expect(same.status).toBe(200);
		expect((await latestEvent(org)).id).toBe(event.id);
	});

	it('rejects a role other than admin or trainer with 400', async () => {
		const response = await org.admin.patch(`/orgs/${org.id}/members/${org.trainerUserId}`, {
			role: 'superuser',
		});
		expect(response.status).toBe(400);
		expect(response.body.error.code).toBe('validation_failed');
	});

	it('answers 404 for a member that does not exist', async () => {
		const missing = '00000000-0000-4000-8000-000000000000';
		expect(
			(await org.admin.patch(`/orgs/${org.id}/members/${missing}`, { role: 'admin' })).status,
		).toBe(404);
		expect((await org.admin.delete(`/orgs/${org.id}/members/${missing}`)).status).toBe(404);
	});
});

describe('last-admin protection', () => {
	it('refuses to demote or remove the only admin', async () => {
		const org = await createOrg(server);
		const demote = await org.admin.patch(`/orgs/${org.id}/members/${org.adminUserId}`, {
			role: 'trainer',
		});
		expect(demote.status).toBe(409);
		expect(demote.body.error.code).toBe('last_admin');
		const remove = await org.admin.delete(`/orgs/${org.id}/members/${org.adminUserId}`);
		expect(remove.status).toBe(409);
		expect(remove.body.error.code).toBe('last_admin');
		expect((await org.admin.get('/me')).body.role).toBe('admin');
	});

	it('never leaves zero admins when two admins demote each other at once', async () => {
		const org = await createOrg(server);
		await org.admin.patch(`/orgs/${org.id}/members/${org.trainerUserId}`, { role: 'admin' });
		const secondAdmin = org.admin.as((await createKeyFor(org, org.trainerUserId)).key);
		const [first, second] = await Promise.all([
			org.admin.patch(`/orgs/${org.id}/members/${org.trainerUserId}`, { role: 'trainer' }),
			secondAdmin.patch(`/orgs/${org.id}/members/${org.adminUserId}`, { role: 'trainer' }),
		]);
		// Whichever commits first wins; the other is refused as last admin (409) or, already demoted, as trainer (403).
		const statuses = [first.status, second.status];
		expect(statuses.filter((status) => status === 200)).toHaveLength(1);
		expect([403, 409]).toContain(statuses.find((status) => status !== 200));
		const admins = (await org.admin.get(`/orgs/${org.id}/members`)).body.filter(
			(m: { role: string }) => m.role === 'admin',
		);
		expect(admins).toHaveLength(1);
	});

	// An admin key of the given user: created through the API by that user after promotion.
	async function createKeyFor(org: TestOrg, userId: string) {
		const actor = { orgId: org.id, userId, email: 'trainer1@x', role: 'admin' as const };
		return server.services.apiKeys.create(actor, { name: `key of ${userId}`, role: 'admin' });
	}
});

describe('removing a member', () => {
	it('revokes all their keys at once and emits member.removed with user_id, email and role', async () => {
		const org = await createOrg(server);
		expect((await org.trainer.get('/me')).status).toBe(200);
		const response = await org.admin.delete(`/orgs/${org.id}/members/${org.trainerUserId}`);
		expect(response.status).toBe(204);

		const refused = await org.trainer.get('/me');
		expect(refused.status).toBe(401);
		expect(refused.body.error.code).toBe('unauthorized');
		const keys = (await org.admin.get(`/orgs/${org.id}/api-keys`)).body;
		expect(keys.find((k: { name: string }) => k.name === 'trainer key').revoked_at).toEqual(
			expect.any(String),
		);
		expect(await latestEvent(org)).toMatchObject({
			type: 'member.removed',
			data: { user_id: org.trainerUserId, email: org.trainerEmail, role: 'trainer' },
		});
		const members = (await org.admin.get(`/orgs/${org.id}/members`)).body;
		expect(members.map((m: { user_id: string }) => m.user_id)).not.toContain(org.trainerUserId);
	});

	it('lets the removed e-mail be added again as a new member', async () => {
		const org = await createOrg(server);
		await org.admin.delete(`/orgs/${org.id}/members/${org.trainerUserId}`);
		const again = await org.admin.post(`/orgs/${org.id}/members`, {
			email: org.trainerEmail,
			name: 'Back',
			role: 'trainer',
		});
		expect(again.status).toBe(201);
		expect(again.body.user_id).not.toBe(org.trainerUserId);
	});
});

describe('closing the organization', () => {
	it('returns the closed organization, emits org.closed and makes every key of it fail', async () => {
		const org = await createOrg(server);
		const response = await org.admin.post(`/orgs/${org.id}/close`);
		expect(response.status).toBe(200);
		expect(response.body).toEqual({
			id: org.id,
			name: expect.any(String),
			slug: org.slug,
			closed_at: expect.any(String),
		});
		for (const client of [org.admin, org.trainer]) {
			const after = await client.get('/me');
			expect(after.status).toBe(401);
			expect(after.headers.get('www-authenticate')).toBe('Bearer');
		}
		const event = server.db
			.prepare("SELECT * FROM events WHERE org_id = ? AND type = 'org.closed'")
			.get(org.id) as { data: string; actor: string };
		expect(JSON.parse(event.data)).toEqual({
			org_id: org.id,
			name: response.body.name,
			slug: org.slug,
			closed_at: response.body.closed_at,
		});
		expect(event.actor).toMatch(/^admin@/);
	});

	it('is admin-only', async () => {
		const org = await createOrg(server);
		const response = await org.trainer.post(`/orgs/${org.id}/close`);
		expect(response.status).toBe(403);
		expect((await org.admin.get('/me')).status).toBe(200);
	});
});
