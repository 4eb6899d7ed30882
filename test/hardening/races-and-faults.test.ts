import { eventually } from '../../tooling/eventually';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ApiClient } from '../../tooling/api/client';
import { createOrg, sessionInput, type TestOrg, serverWithOrg } from '../support/fixtures';
import { bootstrapOrg, spawnServer } from '../../tooling/api/server-process';
import { startTestServer, type TestServer } from '../support/test-server';

describe('revocation during a burst', () => {
	let server: TestServer;
	let org: TestOrg;
	beforeAll(async () => {
		({ server, org } = await serverWithOrg({ RATE_LIMIT_REQUESTS: '100000000' }));
	});
	afterAll(() => server.stop());

	it('no request sent after the revocation returned succeeds', async () => {
		const { id, key } = (
			await org.admin.post(`/orgs/${org.id}/api-keys`, { name: 'burst', role: 'trainer' })
		).body;
		const client = org.admin.as(key);
		const results: Array<{ sentAt: number; status: number }> = [];
		let revokedAt = Infinity;
		let stop = false;
		const worker = async () => {
			while (!stop) {
				const sentAt = performance.now();
				results.push({ sentAt, status: (await client.get('/sessions?limit=1')).status });
			}
		};
		const workers = Array.from({ length: 16 }, worker);
		await eventually(
			() => results.filter((r) => r.status === 200).length > 10,
			'the burst to be under way',
		);
		expect((await org.admin.delete(`/orgs/${org.id}/api-keys/${id}`)).status).toBe(204);
		revokedAt = performance.now();
		await eventually(
			() => results.filter((r) => r.sentAt > revokedAt).length >= 32,
			'requests sent after the revocation',
		);
		stop = true;
		await Promise.all(workers);
		const before = results.filter((r) => r.sentAt < revokedAt);
		const after = results.filter((r) => r.sentAt > revokedAt);
		expect(before.filter((r) => r.status === 200).length).toBeGreaterThan(10);
		expect(after.length).toBeGreaterThan(10);
		expect(after.filter((r) => r.status !== 401)).toEqual([]);
	});
});

describe('faults', () => {
	let server: TestServer;
	let org: TestOrg;
	beforeAll(async () => {
		server = await startTestServer();
		org = await createOrg(server);
	});
	afterAll(() => server.stop());

	it('a full disk gives a 500 internal envelope, loses nothing, and the server recovers when space returns', async () => {
		const before = (await org.trainer.getAll('/sessions')).items.length;
		const pages = server.db.pragma('page_count', { simple: true }) as number;
		server.db.pragma(`max_page_count = ${pages}`); // the database cannot grow: SQLITE_FULL on the next write
		try {
			let full = null;
			for (let i = 0; i < 200 && !full; i++) {
				const response = await org.trainer.post(
					'/sessions',
					sessionInput(org, { title: `Fill ${i}` }),
				);
				if (response.status === 500) full = response;
				else expect(response.status).toBe(201);
			}
			expect(full?.body).toEqual({
				error: { code: 'internal', message: 'An internal error occurred.' },
			});
			expect(server.db.pragma('integrity_check', { simple: true })).toBe('ok');
			expect((await org.trainer.get('/me')).status).toBe(200); // reads go on
		} finally {
			server.db.pragma('max_page_count = 4294967294');
		}
		const recovered = await org.trainer.post(
			'/sessions',
			sessionInput(org, { title: 'After the disk was freed' }),
		);
		expect(recovered.status).toBe(201);
		const sessions = (await org.trainer.getAll('/sessions')).items;
		expect(sessions.length).toBeGreaterThan(before);
		const events = server.db
			.prepare("SELECT count(*) AS n FROM events WHERE org_id = ? AND type = 'session.created'")
			.get(org.id) as { n: number };
		expect(events.n).toBe(sessions.length); // every committed session has its event, no half-written change
	});

	it('a read-only database gives a 500 internal envelope and the server recovers when it is writable again', async () => {
		server.db.pragma('query_only = ON');
		try {
			const refused = await org.trainer.post('/sessions', sessionInput(org));
			expect(refused.status).toBe(500);
			expect(refused.body).toEqual({
				error: { code: 'internal', message: 'An internal error occurred.' },
			});
			expect((await org.trainer.get('/sessions?limit=1')).status).toBe(200);
		} finally {
			server.db.pragma('query_only = OFF');
		}
		expect((await org.trainer.post('/sessions', sessionInput(org))).status).toBe(201);
		expect(server.logs.some((line) => /POST \/api\/v1\/sessions failed/.test(line))).toBe(true);
	});
});

describe('SIGKILL during writes', () => {
	it('leaves no partial change: integrity ok, every acknowledged change present with its event', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'traininglab-kill-'));
		const env = { DATABASE_PATH: join(dir, 'db.sqlite'), RATE_LIMIT_REQUESTS: '100000000' };
		try {
			const boot = bootstrapOrg(env.DATABASE_PATH, 'Kill Org', 'k@kill.test');
			const server = await spawnServer(env);
			const client = new ApiClient(server.url, boot.api_key);
			const versionId = (
				await client.get(`/labs/${(await client.get('/labs')).body[0].id}/versions`)
			).body[0].id;
			const acknowledged: string[] = [];
			let running = true;
			const writer = async (n: number) => {
				for (let i = 0; running; i++) {
					const response = await client
						.post('/sessions', { title: `W${n}-${i}`, lab_version_id: versionId, capacity: 3 })
						.catch(() => null);
					if (!response) return;
					if (response.status === 201) {
						acknowledged.push(response.body.id);
						await client.post(`/sessions/${response.body.id}/start`).catch(() => null);
					}
				}
			};
			const writers = Array.from({ length: 12 }, (_, n) => writer(n));
			await eventually(() => acknowledged.length >= 100, 'a hundred acknowledged writes');
			server.child.kill('SIGKILL');
			running = false;
			await Promise.all(writers);
			await server.exited;

			const db = new Database(env.DATABASE_PATH);
			expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
			expect(db.pragma('foreign_key_check')).toEqual([]);
			const sessions = db.prepare('SELECT id, state FROM sessions').all() as Array<{
				id: string;
				state: string;
			}>;
			const created = new Set(
				db
					.prepare(
						"SELECT json_extract(data, '$.session_id') FROM events WHERE type = 'session.created'",
					)
					.pluck()
					.all(),
			);
			const started = new Set(
				db
					.prepare(
						"SELECT json_extract(data, '$.session_id') FROM events WHERE type = 'session.started'",
					)
					.pluck()
					.all(),
			);
			expect(acknowledged.length).toBeGreaterThan(50);
			expect(acknowledged.filter((id) => !sessions.some((s) => s.id === id))).toEqual([]);
			// Each change and its event commit together: no session without its event, no event without its change.
			expect(sessions.filter((s) => !created.has(s.id))).toEqual([]);
			expect([...created].filter((id) => !sessions.some((s) => s.id === id))).toEqual([]);
			expect(sessions.filter((s) => (s.state === 'running') !== started.has(s.id))).toEqual([]);
			db.close();

			const restarted = await spawnServer(env);
			expect(
				(await new ApiClient(restarted.url, boot.api_key).getAll('/sessions?limit=200')).items,
			).toHaveLength(sessions.length);
			restarted.child.kill('SIGTERM');
			expect(await restarted.exited).toBe(0);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	}, 60_000);
});
