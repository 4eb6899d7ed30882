import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { VARIABLE_MEANINGS } from '../../server/src/config.ts';
import { MIGRATIONS } from '../../server/src/db/migrations.ts';
import { ApiClient } from '../support/api-client.ts';
import { bootstrapOrg, ROOT, spawnServer } from '../support/processes.ts';
import { head, RawConnection } from '../support/raw-http.ts';
import { eventually } from '../support/eventually.ts';

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
		await eventually(
			() =>
				fetch(healthz).then(
					() => false,
					(error: { cause?: { code?: string } }) => error.cause?.code === 'ECONNREFUSED',
				),
			'the server to stop listening',
		);
		await eventually(
			() => /SIGTERM received/.test(server.output()),
			'the server itself to report SIGTERM',
		);
	}, 30_000);

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
