import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
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

/**
 * The Node that runs n8n: the project's Node 24, or the binary `TRAININGLAB_N8N_NODE` names (the
 * weekly compatibility job runs the newest n8n on every Node.js major it supports).
 */
export function n8nRuntime(): string {
	return process.env.TRAININGLAB_N8N_NODE || node24().bin;
}

/** Whether a server can listen on `port` of 127.0.0.1 right now. */
export async function canListen(port: number): Promise<boolean> {
	return await new Promise((resolve) => {
		const server = createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

/** The ports `freePort` has handed out in this process: each is handed out once. */
const handedOut = new Set<number>();

const EPHEMERAL_RANGE = '/proc/sys/net/ipv4/ip_local_port_range';

/**
 * Where `freePort` looks: the 12,000 ports below the kernel's ephemeral range, which a socket bound
 * to port 0 or an outgoing connection never gets. So a process killed and started again finds its
 * ports free: a killed n8n worker's port, once handed out by `listen(0)`, was taken meanwhile by the
 * task broker of the n8n main starting again, and the worker could not start.
 */
function portRange(): { low: number; high: number } {
	const ephemeral = existsSync(EPHEMERAL_RANGE)
		? Number(readFileSync(EPHEMERAL_RANGE, 'utf8').trim().split(/\s+/)[0])
		: 32_768;
	const high = Number.isInteger(ephemeral) && ephemeral > 2_048 ? ephemeral : 32_768;
	return { low: Math.max(1_024, high - 12_000), high };
}

/** A free loopback port for a process to listen on, never handed out before by this process. */
export async function freePort(): Promise<number> {
	const { low, high } = portRange();
	for (let attempt = 0; attempt < 200; attempt++) {
		const port = randomInt(low, high);
		if (handedOut.has(port) || !(await canListen(port))) continue;
		handedOut.add(port);
		return port;
	}
	throw new Error(`no free port on 127.0.0.1 between ${low} and ${high}`);
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
