import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { machine } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../root.ts';

export interface ServerProcess {
	child: ChildProcess;
	url: string;
	output: () => string;
	exited: Promise<number | null>;
	/** SIGTERM, then the exit. */
	stop(): Promise<number | null>;
}

/**
 * How long a server may take to say it listens before it is taken for hung: a bound, not a
 * measure. `npm start` builds the console first, which took 5 s on an idle 2-core machine and over
 * 15 s beside the rest of the test suite.
 */
const START_BOUND_MS = 120_000;

/** The servers this process started that have not exited: each one's kill, and its exit (`stopLeftoverServers`). */
const running = new Set<{ kill: () => void; exited: Promise<unknown> }>();

/**
 * Kills every server this process started that is still running, and waits for each to exit: what
 * a test file leaves running, because a failed expectation skipped its own stop (jest runs this
 * after every unit test file: test/support/stop-leftover-servers.ts).
 */
export async function stopLeftoverServers(): Promise<void> {
	await Promise.all(
		[...running].map(({ kill, exited }) => {
			kill();
			return exited;
		}),
	);
}

/** SIGKILL to `child`, and to its process group when it has one of its own (`npm start`'s server). */
function killAtOnce(child: ChildProcess, detached: boolean): void {
	child.kill('SIGKILL');
	if (!detached) return;
	try {
		process.kill(-child.pid!, 'SIGKILL');
	} catch (error) {
		// The group has no process left.
		if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
	}
}

/**
 * How the server is started: `node server/src/main.ts`, or `npm start` itself. `node, fixed layout`
 * (Linux): with its memory at the same addresses at every start (`setarch --addr-no-randomize`), for
 * benchmarks that compare servers: laid out at random, two servers alike kept speeds up to 13 %
 * apart for their lives. `under`: node run by another program (its command and arguments first, as
 * valgrind runs it), with `nodeArgs`, in the folder `cwd`.
 */
export type ServerLaunch =
	| 'node'
	| 'node, fixed layout'
	| 'npm start'
	| { under: string[]; nodeArgs: string[]; cwd: string };

/**
 * Starts the API server in its own process as `how` says, and waits for its listening line; `log`
 * names a file that gets its output too; `detached` puts it in a process group of its own.
 */
export async function spawnServer(
	env: Record<string, string>,
	how: ServerLaunch = 'node',
	log?: string,
	detached = false,
): Promise<ServerProcess> {
	const { under, nodeArgs, cwd } =
		how === 'node, fixed layout'
			? { under: ['setarch', machine(), '--addr-no-randomize'], nodeArgs: [], cwd: ROOT }
			: how === 'node' || how === 'npm start'
				? { under: [], nodeArgs: [], cwd: ROOT }
				: how;
	const [command, ...args] =
		how === 'npm start'
			? ['npm', 'start']
			: [...under, process.execPath, ...nodeArgs, join(ROOT, 'server/src/main.ts')];
	const child = spawn(command, args, {
		cwd,
		env: { ...process.env, PORT: '0', ...env },
		detached,
	});
	let output = '';
	child.stdout!.on('data', (chunk) => (output += chunk));
	child.stderr!.on('data', (chunk) => (output += chunk));
	if (log) {
		const file = createWriteStream(log);
		child.stdout!.pipe(file);
		child.stderr!.pipe(file);
	}
	const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
	const kill = () => killAtOnce(child, detached);
	const entry = { kill, exited };
	running.add(entry);
	void exited.then(() => running.delete(entry));
	const url = await new Promise<string>((resolve, reject) => {
		const timer = setTimeout(() => {
			kill();
			reject(new Error(`server did not start: ${output}`));
		}, START_BOUND_MS);
		child.stdout!.on('data', () => {
			const match = /listening on (http:\/\/\S+\/api\/v1)/.exec(output);
			if (match) {
				clearTimeout(timer);
				resolve(match[1]);
			}
		});
		child.on('exit', () => {
			clearTimeout(timer);
			reject(new Error(`server exited: ${output}`));
		});
	});
	const stop = async () => {
		child.kill('SIGTERM');
		return exited;
	};
	return { child, url, output: () => output, exited, stop };
}

/** What `npm run bootstrap` prints as its last line. */
export interface Bootstrapped {
	org: { id: string; name: string; slug: string };
	user: { id: string; email: string; name: string };
	role: string;
	api_key: string;
}

/**
 * Runs the bootstrap command on the database at `databasePath` (`--demo`: two labs with a published
 * and a draft version each, two trainers) and returns what its last line of output says.
 */
export function bootstrapOrg(databasePath: string, org: string, email: string): Bootstrapped {
	const args = ['--org', org, '--email', email, '--name', 'Admin', '--demo'];
	const result = spawnSync(process.execPath, ['server/src/cli/bootstrap.ts', ...args], {
		cwd: ROOT,
		env: { ...process.env, DATABASE_PATH: databasePath },
		encoding: 'utf8',
	});
	if (result.status !== 0)
		throw new Error(`bootstrap exited with ${result.status}: ${result.stderr}${result.stdout}`);
	return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Bootstrapped;
}
