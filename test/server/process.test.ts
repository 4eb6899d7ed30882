import { request as httpRequest } from 'node:http';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { VARIABLE_MEANINGS } from '../../server/src/config.ts';
import { MIGRATIONS } from '../../server/src/db/migrations.ts';
import { ApiClient } from '../../tooling/api/client.ts';
import {
	bootstrapOrg,
	spawnServer,
	stopLeftoverServers,
} from '../../tooling/api/server-process.ts';
import { ROOT } from '../../tooling/root.ts';
import { head, RawConnection } from '../support/raw-http.ts';
import { eventually } from '../../tooling/eventually.ts';

let dir: string;
let env: Record<string, string>;
let key: string;
beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), 'traininglab-process-'));
	env = { DATABASE_PATH: join(dir, 'traininglab.sqlite') };
	key = bootstrapOrg(env.DATABASE_PATH, 'Process Org', 'p@process.test').api_key;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the server process', () => {
	it('prints where it listens, serves /healthz, and keeps its data across a restart', async () => {
		const first = await spawnServer(env);
		expect(first.output()).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\/api\/v1$/m);
		expect(await (await fetch(first.url.replace('/api/v1', '/healthz'))).json()).toEqual({
			status: 'ok',
		});
		const client = new ApiClient(first.url, key);
		const version = (await client.get(`/labs/${(await client.get('/labs')).body[0].id}/versions`))
			.body[0];
		const session = (
			await client.post('/sessions', { title: 'Survives', lab_version_id: version.id, capacity: 4 })
		).body;
		first.child.kill('SIGTERM');
		expect(await first.exited).toBe(0);

		const second = await spawnServer(env);
		try {
			const again = new ApiClient(second.url, key);
			expect((await again.get(`/sessions/${session.id}`)).body).toMatchObject({
				id: session.id,
				title: 'Survives',
			});
			const db = new Database(env.DATABASE_PATH, { readonly: true });
			expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
			expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.at(-1)!.version);
			db.close();
		} finally {
			second.child.kill('SIGTERM');
			expect(await second.exited).toBe(0);
		}
	});

	it('on SIGTERM closes idle keep-alive connections at once, finishes the request in flight with Connection: close, then exits 0', async () => {
		// Keep-alive connections would be held for 10 minutes: shutdown must not wait for them.
		const server = await spawnServer({ ...env, HTTP_KEEP_ALIVE_TIMEOUT_MS: '600000' });
		const port = Number(new URL(server.url).port);
		const client = new ApiClient(server.url, key);
		const version = (await client.get(`/labs/${(await client.get('/labs')).body[0].id}/versions`))
			.body[0];
		const body = JSON.stringify({ title: 'In flight', lab_version_id: version.id, capacity: 2 });

		const idle = await RawConnection.open(port);
		idle.write(head('GET', '/api/v1/me', { Host: 'x', Authorization: `Bearer ${key}` }));
		expect((await idle.response()).status).toBe(200);

		const inFlight = await RawConnection.open(port);
		inFlight.write(
			head('POST', '/api/v1/sessions', {
				Host: 'x',
				Authorization: `Bearer ${key}`,
				'Content-Type': 'application/json',
				'Content-Length': Buffer.byteLength(body),
				Expect: '100-continue',
			}),
		);
		expect((await inFlight.response()).status).toBe(100); // the server holds the request and waits for its body

		server.child.kill('SIGTERM');
		await eventually(
			() => /SIGTERM received/.test(server.output()),
			'the server to handle SIGTERM',
		);
		await idle.closed;
		inFlight.write(body);
		const finished = await inFlight.response();
		expect(finished.status).toBe(201);
		expect(finished.json.title).toBe('In flight');
		expect(finished.headers.connection).toBe('close');
		await inFlight.closed;
		expect(await server.exited).toBe(0);
	}, 30_000);

	it('stops when `npm start` is stopped by its own PID', async () => {
		const server = await spawnServer(env, 'npm start');
		const healthz = server.url.replace('/api/v1', '/healthz');
		expect((await fetch(healthz)).status).toBe(200);
		server.child.kill('SIGTERM'); // the PID of npm, as `npm start & … kill $!` has it
		await server.exited;
		await eventually(() => refusesConnections(healthz), 'the server to stop listening');
		await eventually(
			() => /SIGTERM received/.test(server.output()),
			'the server itself to report SIGTERM',
		);
	}, 180_000); // `npm start` builds the console first: up to the start's own bound when busy

	it('refuses to start with an invalid configuration, naming the variable', async () => {
		await expect(spawnServer({ ...env, RATE_LIMIT_REQUESTS: 'many' })).rejects.toThrow(
			/RATE_LIMIT_REQUESTS/,
		);
	});

	it('refuses a database written by a newer schema version instead of corrupting it', async () => {
		const newer = join(dir, 'newer.sqlite');
		const db = new Database(newer);
		db.pragma('user_version = 99');
		db.close();
		await expect(spawnServer({ ...env, DATABASE_PATH: newer })).rejects.toThrow(
			/schema version 99 is newer/,
		);
	});

	it('on a port already in use stops with a message saying what to do, exit code 1', async () => {
		const first = await spawnServer(env);
		try {
			const port = new URL(first.url).port;
			const second = spawnSync(process.execPath, ['server/src/main.ts'], {
				cwd: ROOT,
				env: { ...process.env, ...env, PORT: port },
				encoding: 'utf8',
			});
			expect(second.status).toBe(1);
			expect(second.stderr.trim()).toBe(
				`Port ${port} on 127.0.0.1 is already in use. Stop what listens there, or start on another port: PORT=${Number(port) + 1} npm start (PORT=0 takes any free port).`,
			);
		} finally {
			await first.stop();
		}
	});

	it('kills what a test left running once its file is done (the servers, and the server `npm start` started)', async () => {
		const left = await spawnServer(env);
		const leftInGroup = await spawnServer(env, 'npm start', undefined, true);
		const healthzOf = (url: string) => url.replace('/api/v1', '/healthz');
		await stopLeftoverServers();
		expect(left.child.signalCode).toBe('SIGKILL');
		expect(await refusesConnections(healthzOf(left.url))).toBe(true);
		expect(leftInGroup.child.signalCode).toBe('SIGKILL');
		// The rest of its group dies on its own time.
		await eventually(
			() => refusesConnections(healthzOf(leftInGroup.url)),
			'the server `npm start` started to stop',
		);
	}, 180_000); // `npm start` builds the console first
});

/** Whether `url`'s port refuses connections: nothing listens there any more. */
function refusesConnections(url: string): Promise<boolean> {
	return fetch(url).then(
		() => false,
		(error: { cause?: { code?: string } }) => error.cause?.code === 'ECONNREFUSED',
	);
}

/** A POST as node's own HTTP client sends it: the whole body written at once, the answer read as it comes. */
function postWithNodeHttp(
	url: string,
	body: Buffer,
): Promise<{ status: number; body: unknown } | { error: string }> {
	return new Promise((resolve) => {
		const failed = (error: NodeJS.ErrnoException) =>
			resolve({ error: error.code ?? error.message });
		const request = httpRequest(
			url,
			{
				method: 'POST',
				headers: {
					authorization: `Bearer ${key}`,
					'content-type': 'application/json',
					'content-length': body.length,
				},
			},
			(response) => {
				const chunks: Buffer[] = [];
				response.on('data', (chunk: Buffer) => chunks.push(chunk));
				response.on('end', () =>
					resolve({
						status: response.statusCode!,
						body: JSON.parse(Buffer.concat(chunks).toString()),
					}),
				);
				response.on('error', failed);
			},
		);
		request.on('error', failed);
		request.end(body);
	});
}

describe('a client still sending a body the server refuses', () => {
	// Closing at once would answer the unread bytes with a reset (seen: EPIPE in 10 of 20 tries with
	// 20 MB); the server lingers, reading what still comes, so the client gets the envelope.
	it("reads the 413 envelope every time, with a 20 MB body (node's HTTP client)", async () => {
		const server = await spawnServer(env);
		try {
			const body = Buffer.alloc(20 * 1024 * 1024, 'a');
			for (let attempt = 0; attempt < 20; attempt++)
				expect(await postWithNodeHttp(`${server.url}/sessions`, body)).toEqual({
					status: 413,
					body: {
						error: { code: 'payload_too_large', message: 'The request body exceeds 100 KB.' },
					},
				});
		} finally {
			await server.stop();
		}
	}, 60_000);

	it('reads its envelope on an endpoint that takes no body: 413 for 2 MB, 400 for 90 KB', async () => {
		const server = await spawnServer(env);
		try {
			const client = new ApiClient(server.url, key);
			const version = (await client.get(`/labs/${(await client.get('/labs')).body[0].id}/versions`))
				.body[0];
			const session = (
				await client.post('/sessions', {
					title: 'Bodiless',
					lab_version_id: version.id,
					capacity: 4,
				})
			).body;
			const url = `${server.url}/sessions/${session.id}/start`;
			for (let attempt = 0; attempt < 5; attempt++) {
				expect(await postWithNodeHttp(url, Buffer.alloc(2 * 1024 * 1024, 'a'))).toEqual({
					status: 413,
					body: {
						error: { code: 'payload_too_large', message: 'The request body exceeds 100 KB.' },
					},
				});
				expect(await postWithNodeHttp(url, Buffer.alloc(90 * 1024, 'a'))).toEqual({
					status: 400,
					body: {
						error: { code: 'validation_failed', message: 'This endpoint takes no request body.' },
					},
				});
			}
			expect((await client.get(`/sessions/${session.id}`)).body.state).toBe('scheduled');
		} finally {
			await server.stop();
		}
	}, 60_000);
});

describe('npm start -- --help', () => {
	it('prints every configuration variable with its default and starts nothing', () => {
		const help = spawnSync('npm', ['start', '--silent', '--', '--help'], {
			cwd: ROOT,
			env: { ...process.env, ...env, PORT: '0' },
			encoding: 'utf8',
		});
		expect(help.status).toBe(0);
		expect(help.stdout).not.toMatch(/listening on/);
		for (const variable of Object.keys(VARIABLE_MEANINGS))
			expect(help.stdout).toMatch(new RegExp(`^  ${variable} `, 'm'));
		expect(help.stdout).toMatch(/^ +default: 3000$/m);
		expect(help.stdout).toMatch(/^ +default: 5,300,1800,7200,18000,36000,36000$/m);
	});

	it('an unknown argument is refused with the same help, exit code 2', () => {
		const refused = spawnSync(process.execPath, ['server/src/main.ts', '--port', '4000'], {
			cwd: ROOT,
			env: { ...process.env, ...env, PORT: '0' },
			encoding: 'utf8',
		});
		expect(refused.status).toBe(2);
		expect(refused.stderr).toMatch(/^Unknown argument: --port \(the server takes none/);
		expect(refused.stderr).toMatch(/^ {2}PORT /m);
	});
});
