// Stages what npm users get in build/npm-package: the built nodes, credentials and icons (dist/),
// README, LICENSE, and a package.json holding only what an installed package needs — no
// scripts, workspaces, devDependencies or allowScripts of this repository. `npm run package` packs it
// and the release workflow publishes it. Run after tsc and gulp (the end of `npm run build`).
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeShippedManifest } from './shipped-manifest.mjs';

const root = join(import.meta.dirname, '..');

const stage = join(root, 'build', 'npm-package');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

rmSync(stage, { recursive: true, force: true });
for (const folder of manifest.files)
	cpSync(join(root, folder), join(stage, folder), { recursive: true });
for (const file of ['README.md', 'LICENSE']) cpSync(join(root, file), join(stage, file));
writeShippedManifest(root, stage);
