// The fields of package.json that the published package keeps (see stage-package.mjs).
export const SHIPPED_FIELDS = [
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
