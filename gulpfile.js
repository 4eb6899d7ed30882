// Copies what tsc does not emit into dist/: icons and the codex (*.node.json) files of the nodes.
const { src, dest } = require('gulp');

function buildIcons() {
	return src(
		[
			'icons/**/*.svg',
			'nodes/**/*.{svg,png}',
			'nodes/**/*.node.json',
			'credentials/**/*.{svg,png}',
		],
		{
			base: '.',
			encoding: false,
		},
	).pipe(dest('dist'));
}

exports['build:icons'] = buildIcons;
