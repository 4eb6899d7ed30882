// `n8n-node lint`, n8n's own CLI, over the n8n package as it stands apart from this repository:
// package.json (the published fields), nodes/, credentials/ and icons/ staged in build/n8n-node-lint
// with the CLI's default eslint.config.mjs, which its strict mode (package.json n8n.strict) demands.
// The repository's own eslint.config.mjs lints the server and the tests instead.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { writeShippedManifest } from './shipped-manifest.mjs';

const root = join(import.meta.dirname, '..');

const stage = join(root, 'build', 'n8n-node-lint');
const cli = join(root, 'node_modules', '@n8n', 'node-cli');

rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
for (const entry of ['nodes', 'credentials', 'icons', 'tsconfig.json'])
	cpSync(join(root, entry), join(stage, entry), { recursive: true });
cpSync(
	join(cli, 'dist', 'template', 'templates', 'shared', 'default', 'eslint.config.mjs'),
	join(stage, 'eslint.config.mjs'),
);
writeShippedManifest(root, stage);
// The CLI runs `npm exec -- eslint`: the repository's ESLint and plugins, found through this link.
symlinkSync(join(root, 'node_modules'), join(stage, 'node_modules'));

const result = spawnSync(join(root, 'node_modules', '.bin', 'n8n-node'), ['lint'], {
	cwd: stage,
	stdio: 'inherit',
});
rmSync(stage, { recursive: true, force: true });
process.exitCode = result.status ?? 1;
