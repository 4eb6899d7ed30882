import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { eventually } from '../../tooling/eventually';
import { freePort, run, spawnLogged, type Process } from '../../tooling/processes';
import { patiently } from '../../tooling/n8n/processes';
import { installDebianPackages, isRoot } from '../../tooling/debian';

// PostgreSQL and Redis for n8n's queue mode: Debian's packages, installed when missing, each run by
// the harness itself on a free loopback port with its data in the harness's temp folder, and
// stopped by PID. The machine's own services (if any) are never started or used.

const POSTGRES_LIB = '/usr/lib/postgresql';
const REDIS_SERVER = '/usr/bin/redis-server';

/** The newest installed PostgreSQL's bin folder, if any. */
function postgresBin(): string | undefined {
	if (!existsSync(POSTGRES_LIB)) return undefined;
	const versions = readdirSync(POSTGRES_LIB)
		.filter((version) => existsSync(join(POSTGRES_LIB, version, 'bin', 'postgres')))
		.sort((a, b) => Number(b) - Number(a));
	return versions.length > 0 ? join(POSTGRES_LIB, versions[0], 'bin') : undefined;
}

/** Installs Debian's `postgresql` and `redis-server` when they are missing. */
export function ensureDebianServices(): void {
	installDebianPackages(
		[
			...(postgresBin() ? [] : ['postgresql']),
			...(existsSync(REDIS_SERVER) ? [] : ['redis-server']),
		],
		'The queue-mode end-to-end tests',
	);
}

export interface Service extends Process {
	port: number;
}

/**
 * Who runs PostgreSQL, which refuses to run as root: as root, the `postgres` account the package
 * creates; anyone else runs it as themselves.
 */
function postgresAccount(): { uid?: number; gid?: number } {
	if (!isRoot()) return {};
	const id = (flag: string) => Number(run('id', [flag, 'postgres'], { cwd: '/' }).trim());
	return { uid: id('-u'), gid: id('-g') };
}

/**
 * A PostgreSQL cluster of its own in `dir`, a folder directly inside the harness's temp folder:
 * database `n8n`, user `n8n`, trust on loopback only.
 */
export async function startPostgres(dir: string): Promise<Service> {
	const bin = postgresBin()!;
	const account = postgresAccount();
	const data = join(dir, 'data');
	mkdirSync(dir, { recursive: true });
	if (account.uid !== undefined) {
		chownSync(dir, account.uid, account.gid!);
		// The account must be able to walk into the harness's private temp folder, `dir`'s parent.
		chmodSync(dirname(dir), 0o711);
	}
	const initdb = spawnSync(
		join(bin, 'initdb'),
		['-D', data, '-U', 'n8n', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
		{ ...account, cwd: dir, encoding: 'utf8' },
	);
	if (initdb.status !== 0) throw new Error(`initdb failed:\n${initdb.stdout}\n${initdb.stderr}`);
	const port = await freePort();
	const log = join(dir, 'postgres.log');
	const postgres = spawnLogged(
		join(bin, 'postgres'),
		[
			'-D',
			data,
			'-p',
			String(port),
			'-h',
			'127.0.0.1',
			'-k',
			dir,
			// A throwaway test database: durability is not what is tested.
			'-c',
			'fsync=off',
			'-c',
			'synchronous_commit=off',
			'-c',
			'full_page_writes=off',
		],
		{ cwd: dir, env: { ...process.env, LC_ALL: 'C' }, log, ...account, stopSignal: 'SIGINT' },
	);
	await untilLogged(postgres, 'PostgreSQL', 'ready to accept connections', 60_000);
	run(join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'n8n', 'n8n'], {
		cwd: dir,
	});
	return { ...postgres, port };
}

export interface RedisService extends Service {
	/** Stops Redis (SIGTERM) and starts it again on the same port, with what it had persisted. */
	restart(): Promise<void>;
}

/**
 * A Redis of its own, on loopback, persisting every write to its append-only file (fsync once a
 * second, Redis's default for it): n8n's queue survives a restart. Without persistence a restarted
 * Redis comes back empty, Bull numbers jobs from 1 again, and n8n takes the new jobs' results for
 * the old ones' (README, "Running in n8n queue mode").
 */
export async function startRedis(dir: string): Promise<RedisService> {
	mkdirSync(dir, { recursive: true });
	const port = await freePort();
	let starts = 0;
	const start = async () => {
		const log = join(dir, starts++ === 0 ? 'redis.log' : `redis.${starts}.log`);
		const redis = spawnLogged(
			REDIS_SERVER,
			[
				'--port',
				String(port),
				'--bind',
				'127.0.0.1',
				'--dir',
				dir,
				'--save',
				'',
				'--appendonly',
				'yes',
			],
			{ cwd: dir, env: process.env, log },
		);
		await untilLogged(redis, 'Redis', 'Ready to accept connections', 30_000);
		return redis;
	};
	let current = await start();
	return {
		port,
		get child() {
			return current.child;
		},
		get log() {
			return current.log;
		},
		stop: () => current.stop(),
		async restart() {
			await current.stop();
			current = await start();
		},
	};
}

/** Waits until a service's log says it is ready; a service that does not get there is stopped. */
async function untilLogged(
	service: Process,
	name: string,
	ready: string,
	timeoutMs: number,
): Promise<void> {
	try {
		await eventually(
			async () => {
				if (service.child.exitCode !== null)
					throw new Error(`${name} exited with code ${service.child.exitCode}`);
				return readFileSync(service.log, 'utf8').includes(ready);
			},
			`${name} to accept connections`,
			patiently(timeoutMs, service.log),
		);
	} catch (error) {
		await service.stop();
		throw error;
	}
}
