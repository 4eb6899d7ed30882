// The package is built and packed once for the whole end-to-end run, before the suites start: two
// suites run at a time, and two builds at once in one checkout delete each other's output.
// Workers inherit the environment; packPackage (test/support/real-n8n.ts) copies this tarball.
const { spawnSync } = require('node:child_process');
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

function run(command, args, cwd) {
	const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
	if (result.status !== 0)
		throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
	return result.stdout;
}

module.exports = async () => {
	const root = join(__dirname, '..', '..');
	const dir = mkdtempSync(join(tmpdir(), 'traininglab-e2e-package-'));
	run('npm', ['run', 'build'], root);
	const [packed] = JSON.parse(
		run('npm', ['pack', './build/npm-package', '--json', '--pack-destination', dir], root),
	);
	process.env.TRAININGLAB_E2E_TARBALL = join(dir, packed.filename);
};
