import { execFileSync } from 'node:child_process';
import { cpSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './root.ts';

export const CONSOLE_SOURCE = join(ROOT, 'server', 'console');
/** Where the API server (server/src/main.ts) serves the console from. */
export const CONSOLE_BUILD = join(ROOT, 'build', 'console');

/**
 * The web console into build/console: its TypeScript compiled by tsc into ES modules the browser
 * loads as they are (no bundler, no view library: docs/architecture.md says why), beside the page,
 * the styles and the icon. Built beside the old build and swapped in, so a running server never
 * serves half of one.
 */
export function buildConsole(): void {
	const next = `${CONSOLE_BUILD}.next-${process.pid}`;
	rmSync(next, { recursive: true, force: true });
	try {
		execFileSync(
			process.execPath,
			[
				join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
				'-p',
				join(CONSOLE_SOURCE, 'tsconfig.json'),
				'--outDir',
				next,
			],
			{ stdio: 'inherit' },
		);
		cpSync(join(CONSOLE_SOURCE, 'static'), next, { recursive: true });
		rmSync(CONSOLE_BUILD, { recursive: true, force: true });
		renameSync(next, CONSOLE_BUILD);
	} finally {
		rmSync(next, { recursive: true, force: true });
	}
}
