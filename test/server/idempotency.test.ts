import { createOrg, sessionInput, type TestOrg, serverWithOrg } from '../support/fixtures.ts';
import { type TestServer } from '../support/test-server.ts';

let server: TestServer;
let org: TestOrg;
beforeAll(async () => {
	({ server, org } = await serverWithOrg());
});
afterAll(() => server.stop());

const withKey = (key: string) => ({ headers: { 'idempotency-key': key } });
const sessionCount = () =>
	(
		server.db.prepare('SELECT count(*) AS n FROM sessions WHERE org_id = ?').get(org.id) as {
			n: number;
		}
	).n;

describe('Idempotency-Key', () => {
	it('replays the first response for the same key and body, creating nothing more', async () => {
		const before = sessionCount();
		const first = await org.trainer.post('/sessions', sessionInput(org), withKey('create-1'));
		expect(first.status).toBe(201);
		expect(first.headers.get('idempotent-replayed')).toBeNull();
		const again = await org.trainer.post(
			'/sessions',
			{ capacity: 10, lab_version_id: org.publishedVersionId, title: 'Intro to Pods' },
			withKey('create-1'),
		);
		expect(again.status).toBe(201);
		expect(again.headers.get('idempotent-replayed')).toBe('true');
		expect(again.body).toEqual(first.body);
		expect(sessionCount()).toBe(before + 1);
	});

	it('answers 409 idempotency_conflict for the same key with another body', async () => {
		await org.trainer.post('/sessions', sessionInput(org), withKey('create-2'));
		const response = await org.trainer.post(
			'/sessions',
			sessionInput(org, { capacity: 11 }),
			withKey('create-2'),
		);
		expect(response.status).toBe(409);
		expect(response.body.error.code).toBe('idempotency_conflict');
	});

	it('creates exactly one session for concurrent requests with the same key', async () => {
		const before = sessionCount();
		const responses = await Promise.all(
			Array.from({ length: 20 }, () =>
				org.trainer.post('/sessions', sessionInput(org), withKey('race')),
			),
		);
		expect(responses.every((r) => r.status === 201)).toBe(true);
		expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
		expect(sessionCount()).toBe(before + 1);
	});

	it('scopes keys by organization and by route', async () => {
		const other = await createOrg(server);
		const mine = await org.trainer.post('/sessions', sessionInput(org), withKey('shared'));
		const theirs = await other.trainer.post('/sessions', sessionInput(other), withKey('shared'));
		expect(theirs.status).toBe(201);
		expect(theirs.body.id).not.toBe(mine.body.id);
		const lab = await org.admin.post('/labs', { name: 'Keyed', tier: 'vm' }, withKey('shared'));
		expect(lab.status).toBe(201);
	});

	it('stores a 404 or 409 outcome, but not 400, 401, 403 or 429', async () => {
		const conflict = await org.trainer.post(
			'/sessions',
			sessionInput(org, { lab_version_id: org.draftVersionId }),
			withKey('draft'),
		);
		expect(conflict.status).toBe(409);
		const replayed = await org.trainer.post(
			'/sessions',
			sessionInput(org, { lab_version_id: org.draftVersionId }),
			withKey('draft'),
		);
		expect(replayed.status).toBe(409);
		expect(replayed.headers.get('idempotent-replayed')).toBe('true');
		expect(replayed.body).toEqual(conflict.body);

		const invalid = await org.trainer.post(
			'/sessions',
			sessionInput(org, { capacity: 0 }),
			withKey('fixable'),
		);
		expect(invalid.status).toBe(400);
		expect(
			(
				await org.trainer.post('/sessions', sessionInput(org, { capacity: 0 }), withKey('fixable'))
			).headers.get('idempotent-replayed'),
		).toBeNull();

		const forbidden = await org.trainer.post(
			'/labs',
			{ name: 'Nope', tier: 'vm' },
			withKey('forbidden'),
		);
		expect(forbidden.status).toBe(403);
		const asAdmin = await org.admin.post(
			'/labs',
			{ name: 'Nope', tier: 'vm' },
			withKey('forbidden'),
		);
		expect(asAdmin.status).toBe(201);
	});

	it('replays a created API key or webhook without its secret: secrets are shown once', async () => {
		const first = await org.admin.post(
			`/orgs/${org.id}/api-keys`,
			{ name: 'once', role: 'trainer' },
			withKey('key-once'),
		);
		expect(first.body.key).toMatch(/^tlk_/);
		const replay = await org.admin.post(
			`/orgs/${org.id}/api-keys`,
			{ name: 'once', role: 'trainer' },
			withKey('key-once'),
		);
		expect(replay.status).toBe(201);
		expect(replay.body).toEqual({ ...first.body, key: undefined });
		expect(replay.text).not.toContain(first.body.key);
		const stored = server.db
			.prepare("SELECT body FROM idempotency_keys WHERE key = 'key-once'")
			.get() as { body: string };
		expect(stored.body).not.toContain(first.body.key);
	});

	it('applies to action POSTs: a replayed start does not fail on the new state', async () => {
		const session = (await org.trainer.post('/sessions', sessionInput(org))).body;
		const start = await org.trainer.post(
			`/sessions/${session.id}/start`,
			undefined,
			withKey('start'),
		);
		const retry = await org.trainer.post(
			`/sessions/${session.id}/start`,
			undefined,
			withKey('start'),
		);
		expect([start.status, retry.status]).toEqual([200, 200]);
		expect(retry.body).toEqual(start.body);
	});

	it.each([
		['empty', ''],
		['too long', 'k'.repeat(256)],
	])('refuses an %s key with 400', async (_name, key) => {
		const response = await org.trainer.post('/sessions', sessionInput(org), withKey(key));
		expect(response.status).toBe(400);
		expect(response.body.error.code).toBe('validation_failed');
	});
});
