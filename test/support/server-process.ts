import { spawn, type ChildProcess } from 'node:child_process';

// Shared by the test suites (CommonJS under ts-jest) and the benchmark (ES modules under Node):
// it must not use __dirname or import.meta, so the caller says where the repository is.

export interface ServerProcess {
	child: ChildProcess;
	url: string;
	output: () => string;
	exited: Promise<number | null>;
	/** SIGTERM, then the exit. */
	stop(): Promise<number | null>;
}

/** Starts the API server of the repository at `root` in its own process and waits for its listening line. */
export async function spawnServerIn(
	root: string,
	env: Record<string, string>,
	how: 'node' | 'npm start' = 'node',
): Promise<ServerProcess> {
	const [command, args] =
		how === 'node' ? [process.execPath, ['server/src/main.ts']] : ['npm', ['start']];
	const child = spawn(command, args, { cwd: root, env: { ...process.env, PORT: '0', ...env } });
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
	const stop = async () => {
		child.kill('SIGTERM');
		return exited;
	};
	return { child, url, output: () => output, exited, stop };
}
