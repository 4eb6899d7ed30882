import { connect } from 'node:net';
import { sessionInput, type TestOrg, serverWithOrg } from '../support/fixtures.ts';
import { ROUTES, describeRoute } from '../support/route-table.ts';
import { type TestServer } from '../support/test-server.ts';

let server: TestServer;
let org: TestOrg;
beforeAll(async () => {
	({ server, org } = await serverWithOrg({ RATE_LIMIT_REQUESTS: '100000' }));
});
afterAll(() => server.stop());

function expectEnvelope(
	response: { body: any; headers: Headers },
	status: number,
	actual: number,
	code: string,
) {
	expect(actual).toBe(status);
	expect(response.headers.get('content-type')).toMatch(/^application\/json/);
	expect(response.body).toEqual({
		error: expect.objectContaining({ code, message: expect.any(String) }),
	});
}

describe('error envelope', () => {
	it('answers malformed JSON with 400 malformed_json', async () => {
		const response = await org.trainer.request('POST', '/sessions', {
			rawBody: '{"title": "x",',
			headers: { 'content-type': 'application/json' },
		});
		expectEnvelope(response, 400, response.status, 'malformed_json');
	});

	it.each([
		'text/plain',
		'application/x-www-form-urlencoded',
		'multipart/form-data; boundary=x',
		'application/xml',
	])('answers a %s body with 400', async (type) => {
		const response = await org.trainer.request('POST', '/sessions', {
			rawBody: 'title=x',
			headers: { 'content-type': type },
		});
		expectEnvelope(response, 400, response.status, 'malformed_json');
	});

	it('answers a body without Content-Type with 400', async () => {
		const response = await org.trainer.request('POST', '/sessions', {
			rawBody: JSON.stringify(sessionInput(org)),
			headers: { 'content-type': '' },
		});
		expect(response.status).toBe(400);
	});

	it.each([
		['an array', '[1,2]'],
		['a string', '"x"'],
		['a number', '42'],
		['null', 'null'],
	])('answers %s instead of an object with 400', async (_name, rawBody) => {
		const response = await org.trainer.request('POST', '/sessions', {
			rawBody,
			headers: { 'content-type': 'application/json' },
		});
		expect(response.status).toBe(400);
		expect(['validation_failed', 'malformed_json']).toContain(response.body.error.code);
	});

	it('answers a body over 100 KB with 413 payload_too_large and creates nothing', async () => {
		const before = (await org.trainer.getAll('/sessions')).items.length;
		const response = await org.trainer.post(
			'/sessions',
			sessionInput(org, { padding: 'x'.repeat(101 * 1024) }),
		);
		expectEnvelope(response, 413, response.status, 'payload_too_large');
		expect((await org.trainer.getAll('/sessions')).items.length).toBe(before);
		expect(
			(await org.trainer.post('/sessions', sessionInput(org, { padding: 'x'.repeat(90 * 1024) })))
				.status,
		).toBe(201);
	});

	it('answers an unknown route or method with 404 not_found', async () => {
		for (const [method, path] of [
			['GET', '/nope'],
			['PUT', '/sessions'],
			['DELETE', '/labs'],
			['GET', '/orgs'],
		]) {
			const response = await org.trainer.request(method, path);
			expectEnvelope(response, 404, response.status, 'not_found');
		}
		const outside = await fetch(server.url.replace('/api/v1', '/anything'));
		expect(outside.status).toBe(404);
		expect((await outside.json()).error.code).toBe('not_found');
	});

	it.each(ROUTES.filter((route) => route.params).map((route) => [describeRoute(route), route]))(
		'%s refuses non-UUID path ids with 400 validation_failed',
		async (_name, route) => {
			for (const bad of [
				'not-a-uuid',
				'123',
				"1' OR '1'='1",
				'00000000-0000-0000-0000-00000000000g',
			]) {
				const path = route.path.replace(/\{(\w+)\}/g, encodeURIComponent(bad));
				const response = await org.admin.request(route.method.toUpperCase(), path, {
					body: route.body ? {} : undefined,
				});
				expectEnvelope(response, 400, response.status, 'validation_failed');
			}
		},
	);

	it('answers a malformed percent-encoding in the path with 400, not 500', async () => {
		const response = await org.admin.get('/sessions/%E0%A4%A');
		expect(response.status).toBe(400);
		expect(response.body.error.code).toBe('validation_failed');
	});

	it('answers repeated query parameters with 400', async () => {
		for (const query of ['limit=1&limit=2', 'cursor=a&cursor=b']) {
			const response = await org.trainer.get(`/sessions?${query}`);
			expect(response.status).toBe(400);
		}
	});

	it('never reports a stack trace or SQL', async () => {
		const response = await org.trainer.post('/sessions', {
			title: "x'); DROP TABLE sessions; --",
			lab_version_id: org.publishedVersionId,
			capacity: 1,
		});
		expect(response.status).toBe(201);
		expect((await org.trainer.get('/sessions?limit=1')).status).toBe(200);
		expect(server.logs.join('\n')).not.toMatch(/failed/);
	});

	it('turns an internal failure into a 500 internal envelope without details, and logs it', async () => {
		server.db.exec('DROP TABLE participants');
		try {
			const session = (await org.trainer.post('/sessions', sessionInput(org))).body;
			const response = await org.trainer.get(`/sessions/${session.id}`);
			expect(response.status).toBe(500);
			expect(response.body).toEqual({
				error: { code: 'internal', message: 'An internal error occurred.' },
			});
			expect(response.text).not.toMatch(/participants|sqlite|at /i);
			expect(server.logs.join('\n')).toMatch(/GET \/api\/v1\/sessions\/.* failed/);
		} finally {
			server.db.exec(`CREATE TABLE participants (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, email TEXT NOT NULL, name TEXT NOT NULL,
        joined_at TEXT NOT NULL, UNIQUE (session_id, email))`);
		}
	});

	it('handles a deeply nested unknown field with an Idempotency-Key without failing', async () => {
		const depth = 30_000;
		const rawBody = `{"name":"Deep","tier":"vm","extra":${'['.repeat(depth)}${']'.repeat(depth)}}`;
		const headers = { 'content-type': 'application/json', 'idempotency-key': 'deep' };
		const first = await org.admin.request('POST', '/labs', { rawBody, headers });
		expect(first.status).toBe(201);
		const replay = await org.admin.request('POST', '/labs', { rawBody, headers });
		expect(replay.headers.get('idempotent-replayed')).toBe('true');
	});

	it('answers oversized headers with the envelope', async () => {
		const response = await org.admin.get('/me', { headers: { 'x-filler': 'a'.repeat(20_000) } });
		expect(response.status).toBe(431);
		expect(response.body.error).toEqual({
			code: 'headers_too_large',
			message: 'The request headers exceed 16 KB.',
		});
	});

	it('answers a request that is not HTTP with the envelope', async () => {
		const { port } = new URL(server.url);
		const raw = await new Promise<string>((resolve, reject) => {
			const socket = connect(Number(port), '127.0.0.1', () =>
				socket.write('NOT HTTP AT ALL\r\n\r\n'),
			);
			let text = '';
			socket.on('data', (chunk) => (text += chunk));
			socket.on('end', () => resolve(text));
			socket.on('error', reject);
		});
		expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
		expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)).error.code).toBe('validation_failed');
	});
});
