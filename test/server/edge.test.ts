import { createOrg, type TestOrg } from '../support/fixtures';
import { head, RawConnection, rawRequest, type RawResponse } from '../support/raw-http';
import { startTestServer, type TestServer } from '../support/test-server';

// The server's outer edge as a hostile or careless client meets it (issue 11): every answer is the
// envelope with nosniff, nothing is built from the Host header, and requests are bounded.

let server: TestServer;
let org: TestOrg;
let port: number;
beforeAll(async () => {
	server = await startTestServer({
		HTTP_HEADERS_TIMEOUT_MS: '1000',
		HTTP_REQUEST_TIMEOUT_MS: '1500',
	});
	port = server.port;
	org = await createOrg(server);
});
afterAll(() => server.stop());

const auth = () => `Bearer ${org.admin.key}`;

function expectEnvelope(response: RawResponse, status: number, code: string): void {
	expect({ status: response.status, code: response.json?.error?.code }).toEqual({ status, code });
	expect(typeof response.json.error.message).toBe('string');
	expect(response.headers['content-type']).toMatch(/^application\/json/);
	expect(response.headers['x-content-type-options']).toBe('nosniff');
}

async function sessionCount(): Promise<number> {
	return (server.db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n;
}

describe('the Host header and absolute URLs', () => {
	it.each([
		['a:b:c'],
		[''],
		['exa mple'],
		['[::1'],
		['x:99999'],
		['<x>'],
		['[not:an:ip]'],
		['user@host'],
	])('answers Host %j with 400 and the envelope, never a 500, and logs nothing', async (host) => {
		const response = await rawRequest(
			port,
			head('GET', '/api/v1/labs?limit=1', { Host: host, Authorization: auth() }),
		);
		expectEnvelope(response, 400, 'validation_failed');
		expect(response.json.error.message).toMatch(/Host header/);
		expect(server.logs.filter((line) => / failed /.test(line))).toEqual([]);
	});

	it('accepts ordinary Host forms', async () => {
		for (const host of [
			'localhost',
			'localhost:3000',
			'127.0.0.1:1',
			'[::1]:8080',
			'labs.example.com',
		]) {
			const response = await rawRequest(
				port,
				head('GET', '/api/v1/me', { Host: host, Authorization: auth(), Connection: 'close' }),
			);
			expect({ host, status: response.status }).toEqual({ host, status: 200 });
		}
	});

	it('builds Link from the public URL, whatever Host or request target the client sends', async () => {
		const viaHost = await rawRequest(
			port,
			head('GET', '/api/v1/labs?limit=1', {
				Host: 'evil.example',
				Authorization: auth(),
				Connection: 'close',
			}),
		);
		const viaTarget = await rawRequest(
			port,
			head('GET', 'http://evil.example/api/v1/labs?limit=1', {
				Host: 'evil.example',
				Authorization: auth(),
				Connection: 'close',
			}),
		);
		for (const response of [viaHost, viaTarget]) {
			expect(response.status).toBe(200);
			const link = /^<([^>]+)>; rel="next"$/.exec(response.headers.link)![1];
			expect(link.startsWith(`${server.publicUrl}/labs?`)).toBe(true);
			expect(link).not.toContain('evil');
		}
	});

	it('uses PUBLIC_URL, path prefix included, for every Link', async () => {
		const proxied = await startTestServer({ PUBLIC_URL: 'https://labs.example.com/training/' });
		try {
			const other = await createOrg(proxied);
			const response = await other.admin.get('/labs?limit=1', {
				headers: { host: 'evil.example' },
			});
			expect(response.headers.get('link')).toMatch(
				/^<https:\/\/labs\.example\.com\/training\/api\/v1\/labs\?limit=1&cursor=[\w-]+>; rel="next"$/,
			);
			expect(proxied.publicUrl).toBe('https://labs.example.com/training/api/v1');
		} finally {
			await proxied.stop();
		}
	});

	it('refuses a PUBLIC_URL that is not a plain http(s) URL', async () => {
		for (const value of [
			'labs.example.com',
			'ftp://labs.example.com',
			'https://u:p@labs.example.com',
			'https://labs.example.com/?q=1',
		]) {
			await expect(startTestServer({ PUBLIC_URL: value })).rejects.toThrow(/PUBLIC_URL/);
		}
	});
});

describe('protocol errors carry the envelope', () => {
	it('answers an HTTP/1.1 request without Host with 400 and the envelope', async () => {
		const response = await rawRequest(port, head('GET', '/api/v1/me', { Authorization: auth() }));
		expectEnvelope(response, 400, 'validation_failed');
	});

	it('still serves HTTP/1.0 without Host, where Host is optional', async () => {
		const response = await rawRequest(port, `GET /healthz HTTP/1.0\r\n\r\n`);
		expect(response.status).toBe(200);
		expect(response.headers['x-content-type-options']).toBe('nosniff');
	});

	it('answers an unknown Expect with 417 and the envelope', async () => {
		const response = await rawRequest(
			port,
			head('GET', '/api/v1/me', { Host: 'x', Authorization: auth(), Expect: 'nope' }),
		);
		expectEnvelope(response, 417, 'expectation_failed');
	});

	it('answers a request that is not HTTP, and oversized headers, with the envelope and nosniff', async () => {
		expectEnvelope(await rawRequest(port, 'NOT HTTP AT ALL\r\n\r\n'), 400, 'validation_failed');
		const long = await rawRequest(
			port,
			head('GET', '/api/v1/me', { Host: 'x', Authorization: `Bearer ${'k'.repeat(64 * 1024)}` }),
		);
		expectEnvelope(long, 431, 'headers_too_large');
	});

	it('answers OPTIONS like any unknown method: 404 with the envelope, revealing no routes', async () => {
		const response = await rawRequest(port, head('OPTIONS', '/api/v1/sessions', { Host: 'x' }));
		expectEnvelope(response, 404, 'not_found');
		expect(response.headers.allow).toBeUndefined();
	});

	it('sends nosniff on successes, errors and /healthz alike', async () => {
		for (const response of [
			await org.admin.get('/me'),
			await org.admin.get('/nope'),
			await org.admin.get('/me', { key: null }),
		]) {
			expect(response.headers.get('x-content-type-options')).toBe('nosniff');
		}
		expect(
			(await fetch(server.url.replace('/api/v1', '/healthz'))).headers.get(
				'x-content-type-options',
			),
		).toBe('nosniff');
	});
});

describe('request bounds', () => {
	it('answers a declared body over 100 KB with 413 at once, without waiting for the body, and closes', async () => {
		const response = await rawRequest(
			port,
			head('POST', '/api/v1/sessions', {
				Host: 'x',
				Authorization: auth(),
				'Content-Type': 'application/json',
				'Content-Length': 1_000_000_000,
			}) + '{"ti',
		);
		expectEnvelope(response, 413, 'payload_too_large');
		expect(response.headers.connection).toBe('close');
		await response.connection.closed;
	});

	it('does not ask for the body (100-continue) when the declared size is too large', async () => {
		const connection = await RawConnection.open(port);
		connection.write(
			head('POST', '/api/v1/sessions', {
				Host: 'x',
				Authorization: auth(),
				'Content-Type': 'application/json',
				'Content-Length': 200_000,
				Expect: '100-continue',
			}),
		);
		const response = await connection.response();
		expectEnvelope(response, 413, 'payload_too_large');
		connection.close();
	});

	it('refuses a body on an endpoint that takes none, without reading it, and changes nothing', async () => {
		const session = (
			await org.admin.post('/sessions', {
				title: 'Bounded',
				lab_version_id: org.publishedVersionId,
				capacity: 3,
			})
		).body;
		const events = (
			server.db.prepare("SELECT count(*) AS n FROM events WHERE actor <> 'system'").get() as {
				n: number;
			}
		).n;
		const small = await org.admin.post(`/sessions/${session.id}/join-code`, {});
		expect(small.status).toBe(400);
		expect(small.body.error).toMatchObject({
			code: 'validation_failed',
			message: 'This endpoint takes no request body.',
		});
		// 2 MB announced in chunks: refused after the headers, the connection closed instead of drained.
		const chunked = await rawRequest(
			port,
			head('POST', `/api/v1/sessions/${session.id}/join-code`, {
				Host: 'x',
				Authorization: auth(),
				'Content-Type': 'application/json',
				'Transfer-Encoding': 'chunked',
			}) + `100000\r\n${'a'.repeat(1000)}`,
		);
		expectEnvelope(chunked, 400, 'validation_failed');
		expect(chunked.headers.connection).toBe('close');
		await chunked.connection.closed;
		expect(
			(
				server.db.prepare("SELECT count(*) AS n FROM events WHERE actor <> 'system'").get() as {
					n: number;
				}
			).n,
		).toBe(events);
	});

	it('accepts only UTF-8 JSON: another declared charset gets 415 and nothing is created', async () => {
		const before = await sessionCount();
		// In UTF-7, "+ACI-" is a quote: decoded, this body would be a valid session.
		const utf7 = `{"title":"+ACI-x","lab_version_id":"${org.publishedVersionId}","capacity":2}`;
		for (const charset of ['utf-7', 'UTF-16', 'latin1', '"iso-8859-1"']) {
			const response = await org.admin.post('/sessions', undefined, {
				rawBody: utf7,
				headers: { 'content-type': `application/json; charset=${charset}` },
			});
			expect({ charset, status: response.status, code: response.body.error.code }).toEqual({
				charset,
				status: 415,
				code: 'unsupported_media_type',
			});
			expect(response.headers.get('x-content-type-options')).toBe('nosniff');
		}
		expect(await sessionCount()).toBe(before);
		const utf8 = await org.admin.post('/sessions', undefined, {
			rawBody: JSON.stringify({
				title: 'Grüße',
				lab_version_id: org.publishedVersionId,
				capacity: 2,
			}),
			headers: { 'content-type': 'application/json; charset="UTF-8"' },
		});
		expect(utf8.status).toBe(201);
		expect(utf8.body.title).toBe('Grüße');
	});

	it('answers 408 with the envelope when the headers do not arrive in time', async () => {
		const connection = await RawConnection.open(port);
		connection.write('GET /api/v1/me HTTP/1.1\r\nHost: x\r\n');
		expectEnvelope(await connection.response(), 408, 'request_timeout');
		await connection.closed;
	});

	it('answers 408 with the envelope when the body does not arrive in time', async () => {
		const connection = await RawConnection.open(port);
		connection.write(
			head('POST', '/api/v1/sessions', {
				Host: 'x',
				Authorization: auth(),
				'Content-Type': 'application/json',
				'Content-Length': 100,
			}) + '{"title"',
		);
		expectEnvelope(await connection.response(), 408, 'request_timeout');
		await connection.closed;
	});
});

describe('input a client can get wrong', () => {
	it.each([['0x10'], ['0b11'], ['1e1'], ['+5'], ['-0'], ['1.0'], [' 5'], ['0'], ['201'], ['']])(
		'refuses limit=%j',
		async (limit) => {
			const response = await org.admin.get(`/sessions?limit=${encodeURIComponent(limit)}`);
			expect(response.status).toBe(400);
			expect(response.body.error.details[0].path).toBe('limit');
		},
	);

	it.each([
		['\u200b'],
		['\u200b\u200c\u200d\u2060'],
		['\ufeff'],
		['\u00ad'],
		['\u2800'.replace('\u2800', '\u034f')],
		[' \u200b '],
		['ok\u0000'],
		['a\u0007b'],
	])('refuses a name made of invisible or control characters (%j)', async (name) => {
		const response = await org.admin.post('/labs', { name, tier: 'vm' });
		expect(response.status).toBe(400);
		expect(response.body.error.details[0].path).toBe('name');
	});

	it('accepts names in any script, emoji included', async () => {
		for (const name of ['Кубернетес', '入門 ラボ', '🚀', 'R&D']) {
			expect((await org.admin.post('/labs', { name, tier: 'vm' })).status).toBe(201);
		}
	});
});

describe('cursors', () => {
	async function firstCursor(client = org.admin, path = '/sessions?limit=1'): Promise<string> {
		const link = (await client.get(path)).headers.get('link')!;
		return new URL(/^<([^>]+)>/.exec(link)![1]).searchParams.get('cursor')!;
	}

	it('reveal nothing: the same position seals differently each time, every cursor has the same length, and another organization’s activity does not show', async () => {
		for (let i = 0; i < 2; i++)
			await org.admin.post('/sessions', {
				title: `Paged ${i}`,
				lab_version_id: org.publishedVersionId,
				capacity: 2,
			});
		const first = await firstCursor();
		const other = await createOrg(server);
		for (let i = 0; i < 30; i++)
			await other.admin.post('/sessions', {
				title: `Theirs ${i}`,
				lab_version_id: other.publishedVersionId,
				capacity: 2,
			});
		const again = await firstCursor();
		expect(again).not.toBe(first);
		expect(again.length).toBe(first.length);
		// Both still lead to the same next page.
		const next = (cursor: string) =>
			org.admin
				.get(`/sessions?limit=1&cursor=${cursor}`)
				.then((r) => r.body.map((s: { id: string }) => s.id));
		expect(await next(again)).toEqual(await next(first));
	});

	it('open only on the list and for the organization that received them', async () => {
		const cursor = await firstCursor();
		const other = await createOrg(server);
		for (let i = 0; i < 2; i++)
			await other.admin.post('/sessions', {
				title: `Theirs ${i}`,
				lab_version_id: other.publishedVersionId,
				capacity: 2,
			});
		expect((await other.admin.get(`/sessions?limit=1&cursor=${cursor}`)).status).toBe(400);
		expect((await org.admin.get(`/labs?limit=1&cursor=${cursor}`)).status).toBe(400);
	});

	it('refuse a tampered cursor and the old readable form', async () => {
		const cursor = await firstCursor();
		const flipped = cursor.slice(0, 20) + (cursor[20] === 'A' ? 'B' : 'A') + cursor.slice(21);
		for (const bad of [
			flipped,
			Buffer.from('p1').toString('base64url'),
			Buffer.from('p99999').toString('base64url'),
		]) {
			const response = await org.admin.get(`/sessions?limit=1&cursor=${bad}`);
			expect(response.status).toBe(400);
			expect(response.body.error.details[0].path).toBe('cursor');
		}
	});
});

describe('webhook URLs through the API', () => {
	it.each([
		['https://[3fff::1]/'],
		['https://[5f00::1]/'],
		['https://[100:0:0:1::1]/'],
		['https://[4000::1]/'],
		['https://[1::1]/'],
		['https://[::ffff:0:7f00:1]/'],
		['https://[::2:0:0:1]/'],
		['https://[::ffff:127.0.0.1]/'],
		['https://192.0.0.9/'],
	])('refuses %s with 400 and creates nothing', async (url) => {
		const response = await org.admin.post(`/orgs/${org.id}/webhooks`, {
			url,
			event_types: ['member.removed'],
		});
		expect(response.status).toBe(400);
		expect(response.body.error.details[0]).toMatchObject({ path: 'url' });
		expect((await org.admin.get(`/orgs/${org.id}/webhooks`)).body).toEqual([]);
	});
});
