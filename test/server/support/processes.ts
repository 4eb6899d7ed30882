import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..', '..');

/** Runs an npm script of the project the way a user does, from the repository root. */
export function npmRun(script: string, args: string[], env: Record<string, string>) {
	const result = spawnSync('npm', ['run', '--silent', script, '--', ...args], {
		cwd: ROOT,
		env: { ...process.env, ...env },
		encoding: 'utf8',
	});
	return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export interface ServerProcess {
	child: ChildProcess;
	url: string;
	output: () => string;
	exited: Promise<number | null>;
}

/** Starts `server/src/main.ts` (what `npm start` runs), or `npm start` itself, and waits for its listening line. */
export async function spawnServer(
	env: Record<string, string>,
	how: 'node' | 'npm start' = 'node',
): Promise<ServerProcess> {
	const [command, args] =
		how === 'node' ? [process.execPath, ['server/src/main.ts']] : ['npm', ['start']];
	const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, PORT: '0', ...env } });
	let output = '';
	child.stdout!.on('data', (chunk) => (output += chunk));
	child.stderr!.on('data', (chunk) => (output += chunk));
	const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
	const url = await new Promise<string>((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 15_000);
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
	return { child, url, output: () => output, exited };
}
