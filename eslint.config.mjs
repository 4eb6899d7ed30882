// The server, tests, benchmarks and scripts get a normal TypeScript lint. The n8n package
// (nodes/, credentials/, package.json) is linted by n8n's own CLI, `n8n-node lint`, with its default
// configuration (`npm run lint:n8n`, scripts/n8n-node-lint.mjs) and by n8n's community-package scanner
// (`npm run lint:package`); both apply the community rules (no process, timers or fs) only there.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
	{
		ignores: [
			'dist/**',
			'build/**',
			'nodes/**',
			'credentials/**',
			'node_modules/**',
			'coverage/**',
			'.dev/**',
			'**/api.generated.d.ts',
		],
	},
	js.configs.recommended,
	...tseslint.configs.recommended,
	{
		languageOptions: { globals: { ...globals.node } },
		rules: {
			'@typescript-eslint/no-unused-vars': [
				'error',
				{ argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
			],
		},
	},
	{
		files: ['test/**/*.ts', 'bench/*.bench.ts'],
		languageOptions: { globals: { ...globals.jest } },
		rules: { '@typescript-eslint/no-explicit-any': 'off' },
	},
	// The harness reads n8n's and the API's JSON loosely; the tests check the shapes.
	{ files: ['tooling/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
	{ files: ['**/*.cjs', 'gulpfile.js'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
	// The layout (CONTRIBUTING.md → Layout): the product imports nothing of what only runs it, its
	// commands nothing of the harness, and the harness nothing of the tests or benchmarks.
	layout(['server/**'], ['scripts', 'tooling', 'test', 'bench']),
	layout(['scripts/**'], ['tooling', 'test', 'bench']),
	layout(['tooling/**'], ['test', 'bench']),
);

function layout(files, forbidden) {
	return {
		files,
		rules: {
			'no-restricted-imports': [
				'error',
				{
					patterns: forbidden.map((folder) => ({
						regex: `^(\\.\\./)+${folder}/`,
						message: `${files[0].split('/')[0]}/ does not import ${folder}/ (CONTRIBUTING.md → Layout).`,
					})),
				},
			],
		},
	};
}
