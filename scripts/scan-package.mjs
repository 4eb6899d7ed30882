// The lint n8n applies before it verifies a community package (@n8n/scan-community-package):
// over the shippable sources (package.json, nodes/, credentials/) and over the packed tarball,
// with inline eslint-disable comments ignored. The tarball is the one `npm run package` makes.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

const work = mkdtempSync(join(tmpdir(), 'traininglab-scan-'));
// The scanner makes a temp folder of its own when it is loaded and never removes it: point the
// temp folder into ours first, so that nothing is left behind.
process.env.TMPDIR = work;
const { analyzePackage, SOURCE_FILE_PATTERNS } = await import(
	'@n8n/scan-community-package/scanner/scanner.mjs'
);

function run(command, args, cwd) {
	const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
	if (result.status !== 0)
		throw new Error(`${command} ${args.join(' ')} failed:\n${result.stderr}`);
	return result.stdout;
}

try {
	run('npm', ['run', 'package', '--silent', '--', '--pack-destination', work], root);
	const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
	const unpacked = join(work, 'package');
	mkdirSync(unpacked);
	run('tar', ['-xzf', join(work, tarball), '-C', unpacked, '--strip-components=1'], work);

	const results = [
		['sources', await analyzePackage(root, SOURCE_FILE_PATTERNS)],
		['tarball', await analyzePackage(unpacked, ['**/*.js', 'package.json'])],
	];
	for (const [what, result] of results) {
		console.log(
			`${result.passed ? '✅' : '❌'} ${what}${result.message ? `: ${result.message}` : ''}`,
		);
		if (result.details) console.log(result.details);
	}
	process.exitCode = results.every(([, result]) => result.passed) ? 0 : 1;
} finally {
	rmSync(work, { recursive: true, force: true });
}
