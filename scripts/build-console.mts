// `npm run build:console` (also run by `npm start` and `npm run build`, and by `npm run dev`): the
// web console the API server serves at /console, into build/console.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
	cpSync,
	existsSync,
	readdirSync,
	readFileSync,
	renameSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { generateApiTypes } from './generate-api-types.mts';

const ROOT = join(import.meta.dirname, '..');
const CONSOLE_SOURCE = join(ROOT, 'server', 'console');
/** Where the API server (server/src/main.ts) serves the console from. */
export const CONSOLE_BUILD = join(ROOT, 'build', 'console');

/** Marks which sources a build was made from (a dotfile: the server does not serve it). */
const SOURCE_HASH = '.source-hash';

/** A hash of every file under server/console, names and contents. */
function sourceHash(): string {
	const hash = createHash('sha256');
	const files = readdirSync(CONSOLE_SOURCE, { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile())
		.map((entry) => join(entry.parentPath, entry.name))
		.sort();
	for (const file of files) hash.update(`${file}\0`).update(readFileSync(file)).update('\0');
	return hash.digest('hex');
}

/**
 * The web console into build/console: its TypeScript compiled by tsc into ES modules the browser
 * loads as they are (no bundler, no view library: docs/architecture.md says why), beside the page,
 * the styles and the icon. Nothing happens when the build is already of the current sources (the
 * API's types included), so `npm start`, `npm run dev` and the tests (several at once) leave a
 * served console alone; otherwise the new build is made beside the old one and swapped in.
 */
export async function buildConsole(): Promise<void> {
	await generateApiTypes();
	const hash = sourceHash();
	const built = join(CONSOLE_BUILD, SOURCE_HASH);
	const isCurrent = () => existsSync(built) && readFileSync(built, 'utf8') === hash;
	if (isCurrent()) return;
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
		writeFileSync(join(next, SOURCE_HASH), hash);
		rmSync(CONSOLE_BUILD, { recursive: true, force: true });
		try {
			renameSync(next, CONSOLE_BUILD);
		} catch (error) {
			// Another process building the same sources put its build there first: that one serves.
			if (!isCurrent()) throw error;
		}
	} finally {
		rmSync(next, { recursive: true, force: true });
	}
}

if (import.meta.main) await buildConsole();
