// Benchmarks that need the n8n-core harness of the tests run through jest (see bench/run.mts and
// bench/n8n.mts): test/bench/*.bench.ts.
module.exports = {
	// jest's transform cache stays in the clone, not in /tmp.
	cacheDirectory: '<rootDir>/node_modules/.cache/jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/bench'],
	testMatch: ['**/*.bench.ts'],
	globalSetup: '<rootDir>/test/global-setup.cjs',
	globalTeardown: '<rootDir>/test/global-teardown.cjs',
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }] },
};
