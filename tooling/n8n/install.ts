import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { PACKAGE_NAME, ROOT } from '../root.ts';
import { node24, run } from '../processes.ts';
import type { N8nPin } from './pins.ts';

/** An installed n8n: where, which pin, its exact version. */
export interface N8nInstall {
	dir: string;
	pin: N8nPin;
	version: string;
}

/**
 * A pinned n8n, installed once per lockfile into the cache (tooling/commands/install-n8n.mjs, which `.ci/run`
 * also runs ahead of the suites) and reused while the lockfile is unchanged.
 */
export function ensureN8n(pin: N8nPin = '2.x'): N8nInstall {
	const printed = run(node24().bin, [join(ROOT, 'tooling', 'commands', 'install-n8n.mjs'), pin], {
		cwd: ROOT,
	});
	const { dir } = JSON.parse(printed.trim().split('\n').pop()!) as { dir: string };
	const { version } = JSON.parse(
		readFileSync(join(dir, 'node_modules', 'n8n', 'package.json'), 'utf8'),
	) as { version: string };
	return { dir, pin, version };
}

/**
 * This package as it is published, in `work`: the tarball the end-to-end run packed once before its
 * suites (test/e2e/global-setup.ts), copied, or else built and packed now. Returns its path.
 */
export function packPackage(work: string): string {
	const packedOnce = process.env.TRAININGLAB_E2E_TARBALL;
	if (!packedOnce) return buildAndPack(work);
	const tarball = join(work, basename(packedOnce));
	copyFileSync(packedOnce, tarball);
	return tarball;
}

/** Builds and packs this package into `work` as it is published (`npm run package`); returns the tarball's path. */
export function buildAndPack(work: string): string {
	run('npm', ['run', 'build'], { cwd: ROOT });
	const packed = JSON.parse(
		run('npm', ['pack', './build/npm-package', '--json', '--pack-destination', work], {
			cwd: ROOT,
		}),
	);
	return join(work, packed[0].filename);
}

/** Installs the packed package into an n8n user folder as n8n's community-package installer does. */
export function installTarball(userFolder: string, tarball: string): void {
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	const target = join(nodesDir, 'node_modules', PACKAGE_NAME);
	mkdirSync(target, { recursive: true });
	run('tar', ['-xzf', tarball, '-C', target, '--strip-components=1'], { cwd: userFolder });
	const { version } = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8'));
	writeFileSync(
		join(nodesDir, 'package.json'),
		JSON.stringify({
			name: 'installed-nodes',
			private: true,
			dependencies: { [PACKAGE_NAME]: version },
		}),
	);
}
