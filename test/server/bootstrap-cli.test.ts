import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { npmRun } from '../support/processes.ts';

let dir: string;
let env: Record<string, string>;
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'traininglab-cli-'));
	env = { DATABASE_PATH: join(dir, 'nested', 'traininglab.sqlite') };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const lastLine = (stdout: string) => stdout.trim().split('\n').at(-1)!;
const count = (table: string) => {
	const db = new Database(env.DATABASE_PATH, { readonly: true });
	try {
		return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
	} finally {
		db.close();
	}
};

describe('npm run bootstrap', () => {
	it('creates the organization, its first admin and an admin key, printed as one JSON line', () => {
		const result = npmRun(
			'bootstrap',
			['--org', 'Acme Training', '--email', 'Ada@Acme.test', '--name', 'Ada Admin'],
			env,
		);
		expect(result.status).toBe(0);
		const printed = JSON.parse(lastLine(result.stdout));
		expect(printed).toEqual({
			org: { id: expect.any(String), name: 'Acme Training', slug: 'acme-training' },
			user: { id: expect.any(String), email: 'ada@acme.test', name: 'Ada Admin' },
			role: 'admin',
			api_key: expect.stringMatching(/^tlk_[0-9A-Za-z]{38}$/),
		});
		expect(count('labs')).toBe(0);
		expect(count('users')).toBe(1);
	});

	it('--demo adds two labs with a published v1 and a draft v2 each, and two trainers', () => {
		const result = npmRun(
			'bootstrap',
			['--org', 'Demo Org', '--email', 'ada@demo.test', '--name', 'Ada', '--demo'],
			env,
		);
		expect(result.status).toBe(0);
		const db = new Database(env.DATABASE_PATH, { readonly: true });
		try {
			expect(db.prepare('SELECT name, tier FROM labs ORDER BY name').all()).toEqual([
				{ name: 'Kubernetes Basics', tier: 'cluster' },
				{ name: 'Linux Fundamentals', tier: 'vm' },
			]);
			const versions = db.prepare(
				'SELECT l.name, v.version, v.status FROM lab_versions v JOIN labs l ON l.id = v.lab_id ORDER BY l.name, v.version',
			);
			expect(versions.all()).toEqual([
				{ name: 'Kubernetes Basics', version: 1, status: 'published' },
				{ name: 'Kubernetes Basics', version: 2, status: 'draft' },
				{ name: 'Linux Fundamentals', version: 1, status: 'published' },
				{ name: 'Linux Fundamentals', version: 2, status: 'draft' },
			]);
			expect(db.prepare("SELECT count(*) AS n FROM users WHERE role = 'trainer'").get()).toEqual({
				n: 2,
			});
		} finally {
			db.close();
		}
	});

	it('refuses a taken slug with a clear error, exit code 1 and nothing written', () => {
		expect(
			npmRun('bootstrap', ['--org', 'Acme Training', '--email', 'a@acme.test', '--name', 'A'], env)
				.status,
		).toBe(0);
		const before = ['orgs', 'users', 'api_keys', 'events'].map(count);
		const again = npmRun(
			'bootstrap',
			['--org', 'ACME training!', '--email', 'b@acme.test', '--name', 'B', '--demo'],
			env,
		);
		expect(again.status).toBe(1);
		expect(again.stderr).toMatch(/slug "acme-training" is already taken/);
		expect(['orgs', 'users', 'api_keys', 'events'].map(count)).toEqual(before);
	});

	it.each([
		['a missing --email', ['--org', 'X', '--name', 'N']],
		['an invalid e-mail', ['--org', 'X', '--email', 'nope', '--name', 'N']],
		['an unknown option', ['--org', 'X', '--email', 'a@x.test', '--name', 'N', '--admin']],
	])('refuses %s with usage and exit code 2', (_name, args) => {
		const result = npmRun('bootstrap', args, env);
		expect(result.status).toBe(2);
		expect(result.stderr).toMatch(/usage: npm run bootstrap/);
		expect(result.stderr).not.toMatch(/TypeError|ERR_PARSE_ARGS/);
	});

	it.each([['--help'], ['-h']])(
		'%s prints the usage and every option, exits 0 and writes nothing',
		(flag) => {
			const result = npmRun('bootstrap', [flag], env);
			expect(result.status).toBe(0);
			expect(result.stdout).toMatch(/usage: npm run bootstrap/);
			for (const option of ['--org', '--email', '--name', '--demo'])
				expect(result.stdout).toContain(option);
			expect(result.stderr).not.toMatch(/error/i);
			expect(existsSync(env.DATABASE_PATH)).toBe(false);
		},
	);
});
