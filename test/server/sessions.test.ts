import { sessionInput, type TestOrg, serverWithOrg } from '../support/fixtures.ts';
import { type TestServer } from '../support/test-server.ts';

let server: TestServer;
let org: TestOrg;

beforeAll(async () => {
	({ server, org } = await serverWithOrg());
});
afterAll(() => server.stop());

async function createSession(overrides: Record<string, unknown> = {}) {
	const response = await org.trainer.post('/sessions', sessionInput(org, overrides));
	expect(response.status).toBe(201);
	return response.body;
}

describe('POST /sessions', () => {
	it('creates a scheduled session with the fields of the list shape', async () => {
		const response = await org.trainer.post(
			'/sessions',
			sessionInput(org, { title: '  Pods  ', starts_at: '2026-12-01T09:30:00+02:00' }),
		);
		expect(response.status).toBe(201);
		expect(response.body).toEqual({
			id: expect.stringMatching(/^[0-9a-f-]{36}$/),
			title: 'Pods',
			state: 'scheduled',
			capacity: 10,
			starts_at: '2026-12-01T07:30:00.000Z',
			lab_version_id: org.publishedVersionId,
			created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
		});
		expect(response.body).not.toHaveProperty('join_code');
	});

	it('returns starts_at as null when it is not given', async () => {
		expect((await createSession()).starts_at).toBeNull();
	});

	it('refuses a draft lab version with 409 lab_version_not_published', async () => {
		const response = await org.trainer.post(
			'/sessions',
			sessionInput(org, { lab_version_id: org.draftVersionId }),
		);
		expect(response.status).toBe(409);
		expect(response.body.error.code).toBe('lab_version_not_published');
	});

	it('answers 404 for an unknown lab version', async () => {
		const response = await org.trainer.post(
			'/sessions',
			sessionInput(org, { lab_version_id: '00000000-0000-4000-8000-000000000000' }),
		);
		expect(response.status).toBe(404);
		expect(response.body.error.code).toBe('not_found');
	});

	it.each([
		['capacity 0', { capacity: 0 }, 'capacity'],
		['capacity 1001', { capacity: 1001 }, 'capacity'],
		['fractional capacity', { capacity: 2.5 }, 'capacity'],
		['capacity as a string', { capacity: '10' }, 'capacity'],
		['blank title', { title: '   ' }, 'title'],
		['title of 201 characters', { title: 'x'.repeat(201) }, 'title'],
		['timestamp without offset', { starts_at: '2026-12-01T09:30:00' }, 'starts_at'],
		['non-UUID lab version', { lab_version_id: 'v1' }, 'lab_version_id'],
	])('rejects %s with 400 validation_failed naming the field', async (_name, overrides, field) => {
		const response = await org.trainer.post('/sessions', sessionInput(org, overrides));
		expect(response.status).toBe(400);
		expect(response.body.error.code).toBe('validation_failed');
		expect(response.body.error.details).toEqual(
			expect.arrayContaining([expect.objectContaining({ path: field })]),
		);
	});

	it('accepts the bounds 1 and 1000 and a 200-character title, ignoring unknown fields', async () => {
		const response = await org.trainer.post(
			'/sessions',
			sessionInput(org, { capacity: 1000, title: 't'.repeat(200), color: 'blue' }),
		);
		expect(response.status).toBe(201);
		expect(response.body).not.toHaveProperty('color');
		expect((await org.trainer.post('/sessions', sessionInput(org, { capacity: 1 }))).status).toBe(
			201,
		);
	});

	it('requires a body', async () => {
		const response = await org.trainer.request('POST', '/sessions');
		expect(response.status).toBe(400);
		expect(response.body.error.code).toBe('validation_failed');
	});
});

describe('GET /sessions/{id}', () => {
	it('returns the session with its participant count', async () => {
		const session = await createSession();
		const response = await org.trainer.get(`/sessions/${session.id}`);
		expect(response.status).toBe(200);
		expect(response.body).toEqual({ ...session, participants: 0 });
	});

	it('accepts the id in upper case', async () => {
		const session = await createSession();
		expect((await org.trainer.get(`/sessions/${session.id.toUpperCase()}`)).status).toBe(200);
	});

	it('answers 404 for an unknown session', async () => {
		const response = await org.trainer.get('/sessions/00000000-0000-4000-8000-000000000000');
		expect(response.status).toBe(404);
		expect(response.body.error.code).toBe('not_found');
	});
});

describe('session states', () => {
	it('moves scheduled → running → ended and refuses every other transition', async () => {
		const session = await createSession();
		expect((await org.trainer.post(`/sessions/${session.id}/end`)).body.error.code).toBe(
			'invalid_state',
		);

		const started = await org.trainer.post(`/sessions/${session.id}/start`);
		expect(started.status).toBe(200);
		expect(started.body).toMatchObject({ id: session.id, state: 'running', participants: 0 });
		expect((await org.trainer.post(`/sessions/${session.id}/start`)).status).toBe(409);

		const ended = await org.trainer.post(`/sessions/${session.id}/end`);
		expect(ended.status).toBe(200);
		expect(ended.body.state).toBe('ended');
		for (const action of ['start', 'end']) {
			const response = await org.trainer.post(`/sessions/${session.id}/${action}`);
			expect(response.status).toBe(409);
			expect(response.body.error.code).toBe('invalid_state');
		}
		expect((await org.trainer.get(`/sessions/${session.id}`)).body.state).toBe('ended');
	});

	it('refuses to delete a running session and deletes scheduled and ended ones', async () => {
		const running = await createSession();
		await org.trainer.post(`/sessions/${running.id}/start`);
		const refused = await org.trainer.delete(`/sessions/${running.id}`);
		expect(refused.status).toBe(409);
		expect(refused.body.error.code).toBe('invalid_state');
		expect((await org.trainer.get(`/sessions/${running.id}`)).status).toBe(200);

		await org.trainer.post(`/sessions/${running.id}/end`);
		const deleted = await org.trainer.delete(`/sessions/${running.id}`);
		expect(deleted.status).toBe(204);
		expect(deleted.text).toBe('');
		expect((await org.trainer.get(`/sessions/${running.id}`)).status).toBe(404);
		expect((await org.trainer.delete(`/sessions/${running.id}`)).status).toBe(404);

		const scheduled = await createSession();
		expect((await org.trainer.delete(`/sessions/${scheduled.id}`)).status).toBe(204);
	});
});

describe('join codes and joining', () => {
	it('rotates to an 8-character unambiguous code and the old code stops working at once', async () => {
		const session = await createSession();
		const first = await org.trainer.post(`/sessions/${session.id}/join-code`);
		expect(first.status).toBe(200);
		expect(first.body.join_code).toMatch(/^[A-HJKMNP-Z2-9]{8}$/);
		const second = await org.trainer.post(`/sessions/${session.id}/join-code`);
		expect(second.body.join_code).not.toBe(first.body.join_code);

		const stale = await org.trainer.post('/join', {
			join_code: first.body.join_code,
			email: 'p@x.test',
			name: 'P',
		});
		expect(stale.status).toBe(404);
		const joined = await org.trainer.post('/join', {
			join_code: second.body.join_code.toLowerCase(),
			email: 'P@X.test',
			name: 'P',
		});
		expect(joined.status).toBe(201);
		expect(joined.body).toEqual({
			session_id: session.id,
			participant: {
				id: expect.any(String),
				email: 'p@x.test',
				name: 'P',
				joined_at: expect.any(String),
			},
		});
		expect((await org.trainer.get(`/sessions/${session.id}`)).body.participants).toBe(1);
	});

	it('refuses the same e-mail twice, a full session and an ended session', async () => {
		const session = await createSession({ capacity: 2 });
		const { join_code } = (await org.admin.post(`/sessions/${session.id}/join-code`)).body;
		const join = (email: string) =>
			org.trainer.post('/join', { join_code, email, name: 'Participant' });

		expect((await join('a@x.test')).status).toBe(201);
		const again = await join('A@x.test');
		expect(again.status).toBe(409);
		expect(again.body.error.code).toBe('already_member');
		expect((await join('b@x.test')).status).toBe(201);
		const full = await join('c@x.test');
		expect(full.status).toBe(409);
		expect(full.body.error.code).toBe('session_full');
		expect((await org.trainer.get(`/sessions/${session.id}`)).body.participants).toBe(2);

		const open = await createSession();
		const code = (await org.trainer.post(`/sessions/${open.id}/join-code`)).body.join_code;
		await org.trainer.post(`/sessions/${open.id}/start`);
		expect(
			(await org.trainer.post('/join', { join_code: code, email: 'r@x.test', name: 'R' })).status,
		).toBe(201);
		await org.trainer.post(`/sessions/${open.id}/end`);
		const ended = await org.trainer.post('/join', {
			join_code: code,
			email: 'late@x.test',
			name: 'Late',
		});
		expect(ended.status).toBe(409);
		expect(ended.body.error.code).toBe('invalid_state');
		expect((await org.trainer.post(`/sessions/${open.id}/join-code`)).body.error.code).toBe(
			'invalid_state',
		);
	});

	it('never exceeds capacity under 50 concurrent joins', async () => {
		const session = await createSession({ capacity: 10 });
		const { join_code } = (await org.trainer.post(`/sessions/${session.id}/join-code`)).body;
		const responses = await Promise.all(
			Array.from({ length: 50 }, (_, i) =>
				org.trainer.post('/join', { join_code, email: `p${i}@x.test`, name: `P${i}` }),
			),
		);
		const statuses = responses.map((response) => response.status);
		expect(statuses.filter((status) => status === 201)).toHaveLength(10);
		expect(statuses.filter((status) => status === 409)).toHaveLength(40);
		expect((await org.trainer.get(`/sessions/${session.id}`)).body.participants).toBe(10);
	});

	it.each([
		['a code of 7 characters', { join_code: 'ABCDEFG', email: 'a@x.test', name: 'A' }, 'join_code'],
		['an invalid e-mail', { join_code: 'ABCDEFGH', email: 'not-an-email', name: 'A' }, 'email'],
		['a missing name', { join_code: 'ABCDEFGH', email: 'a@x.test' }, 'name'],
	])('rejects %s with 400', async (_name, body, field) => {
		const response = await org.trainer.post('/join', body);
		expect(response.status).toBe(400);
		expect(response.body.error.details[0].path).toBe(field);
	});

	it('answers 404 for a code that never existed', async () => {
		const response = await org.trainer.post('/join', {
			join_code: 'ZZZZZZZZ',
			email: 'a@x.test',
			name: 'A',
		});
		expect(response.status).toBe(404);
		expect(response.body.error.code).toBe('not_found');
	});
});
