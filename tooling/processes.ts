import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function run(
	command: string,
	args: string[],
	options: { cwd: string; env?: NodeJS.ProcessEnv },
): string {
	const result = spawnSync(command, args, {
		cwd: options.cwd,
		env: options.env ?? process.env,
		encoding: 'utf8',
		maxBuffer: 256 * 1024 * 1024,
	});
	if (result.status !== 0)
		throw new Error(
			`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`.slice(
				-8000,
			),
		);
	return result.stdout;
}

/** The Node 24 runtime the project runs on (devDependency `node`, from the npm registry). */
export function node24(): { bin: string } {
	return { bin: realpathSync(process.execPath) };
}

export async function freePort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
}

export interface Process {
	child: ChildProcess;
	log: string;
	stop(): Promise<void>;
}

/** A process with its output in `log`, stopped by PID (`stopSignal`, SIGTERM by default). */
export function spawnLogged(
	command: string,
	args: string[],
	options: {
		cwd: string;
		env: NodeJS.ProcessEnv;
		log: string;
		uid?: number;
		gid?: number;
		stopSignal?: NodeJS.Signals;
		/** Adds to the log instead of starting it afresh (a process started again). */
		append?: boolean;
		/** In a process group of its own: a Ctrl-C in the terminal reaches only whoever stops it. */
		detached?: boolean;
	},
): Process {
	const child = spawn(command, args, {
		cwd: options.cwd,
		env: options.env,
		uid: options.uid,
		gid: options.gid,
		detached: options.detached,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const log = createWriteStream(options.log, { flags: options.append ? 'a' : 'w' });
	child.stdout!.pipe(log);
	child.stderr!.pipe(log);
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	return {
		child,
		log: options.log,
		async stop() {
			if (child.exitCode === null && child.signalCode === null)
				child.kill(options.stopSignal ?? 'SIGTERM');
			await exited;
		},
	};
}

export function tail(path: string, lines = 40): string {
	return existsSync(path) ? readFileSync(path, 'utf8').split('\n').slice(-lines).join('\n') : '';
}

/** A fresh temporary folder for one run of a suite or a benchmark. */
export function tempRoot(): string {
	return mkdtempSync(join(tmpdir(), 'traininglab-e2e-'));
}
