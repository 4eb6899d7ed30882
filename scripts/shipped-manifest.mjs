// The package.json of the published package: only what an installed package needs (see stage-package.mjs).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SHIPPED_FIELDS = [
	'name',
	'version',
	'description',
	'license',
	'keywords',
	'homepage',
	'repository',
	'bugs',
	'author',
	'files',
	'engines',
	'n8n',
	'peerDependencies',
];

/** Writes into `folder` the package.json of `root` with only the published fields. */
export function writeShippedManifest(root, folder) {
	const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
	const shipped = Object.fromEntries(
		SHIPPED_FIELDS.filter((field) => field in manifest).map((field) => [field, manifest[field]]),
	);
	writeFileSync(join(folder, 'package.json'), `${JSON.stringify(shipped, null, '\t')}\n`);
}
