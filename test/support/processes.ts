import { spawnSync } from 'node:child_process';
import { ROOT } from '../../tooling/root.ts';

/** Runs an npm script of the project the way a user does, from the repository root. */
export function npmRun(script: string, args: string[], env: Record<string, string>) {
	const result = spawnSync('npm', ['run', '--silent', script, '--', ...args], {
		cwd: ROOT,
		env: { ...process.env, ...env },
		encoding: 'utf8',
	});
	return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
