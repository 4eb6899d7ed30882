// `npm run test:e2e`: the package in a real n8n, one process and queue mode, and `npm run dev`
// (test/e2e/*.e2e.ts). Two suites at a time: most of a suite's time is spent waiting on n8n (its
// start, executions, polls), so two share a 2-core machine well (measured: e2e about 17 → 12 min);
// three at once, beside the installs, loaded it to the point of failing tests (docs/testing.md).
module.exports = {
	// jest's transform cache stays in the clone, not in /tmp.
	cacheDirectory: '<rootDir>/node_modules/.cache/jest',
	testEnvironment: 'node',
	// fetch keeps no connection between requests (the file says why).
	setupFiles: ['<rootDir>/test/support/no-keep-alive.ts'],
	// Every failure again at the end, beside the counts, where a CI log's tail shows it.
	reporters: [['default', { summaryThreshold: 0 }]],
	// Each test with its time, so that a CI log shows where a suite's minutes go.
	verbose: true,
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.ts'],
	// n8n's newest release, unpinned, only when the weekly compatibility job names it.
	testPathIgnorePatterns: process.env.TRAININGLAB_N8N_VERSION ? [] : ['/n8n-latest\\.e2e\\.ts$'],
	maxWorkers: 2,
	testSequencer: '<rootDir>/test/e2e/sequencer.cjs',
	// The package is built once, before two suites run at a time.
	globalSetup: '<rootDir>/test/e2e/global-setup.ts',
	globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
	testTimeout: 120_000,
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }] },
};
