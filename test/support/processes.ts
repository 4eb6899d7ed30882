import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import {
	bootstrapIn,
	spawnServerIn,
	type Bootstrapped,
	type ServerProcess,
} from './server-process.ts';

export const ROOT = join(__dirname, '..', '..');

/** Runs an npm script of the project the way a user does, from the repository root. */
export function npmRun(script: string, args: string[], env: Record<string, string>) {
	const result = spawnSync('npm', ['run', '--silent', script, '--', ...args], {
		cwd: ROOT,
		env: { ...process.env, ...env },
		encoding: 'utf8',
	});
	return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export type { Bootstrapped, ServerProcess };

/**
 * Starts `server/src/main.ts` (what `npm start` runs), or `npm start` itself, from the repository
 * root; `log` names a file that gets its output too.
 */
export function spawnServer(
	env: Record<string, string>,
	how: 'node' | 'npm start' = 'node',
	log?: string,
) {
	return spawnServerIn(ROOT, env, how, log);
}

/** An organisation, its admin and an admin API key, made by the bootstrap command (`--demo`). */
export function bootstrapOrg(databasePath: string, org: string, email: string): Bootstrapped {
	return bootstrapIn(ROOT, databasePath, org, email);
}
