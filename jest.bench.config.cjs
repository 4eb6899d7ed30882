// The benchmarks that run through jest, for the tests' harness (see bench/run.mts and bench/n8n.mts):
// bench/*.bench.ts.
module.exports = {
	// jest's transform cache stays in the clone, not in /tmp.
	cacheDirectory: '<rootDir>/node_modules/.cache/jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/bench'],
	testMatch: ['**/*.bench.ts'],
	globalSetup: '<rootDir>/test/global-setup.cjs',
	globalTeardown: '<rootDir>/test/global-teardown.cjs',
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }] },
};
