module.exports = {
	// jest's transform cache stays in the clone, not in /tmp.
	cacheDirectory: '<rootDir>/node_modules/.cache/jest',
	testEnvironment: 'node',
	// fetch lets idle connections go before the servers close them (the file says why).
	setupFiles: ['<rootDir>/test/support/short-keep-alive.ts'],
	setupFilesAfterEnv: ['<rootDir>/test/support/stop-leftover-servers.ts'],
	// Every failure again at the end, beside the counts, where a CI log's tail shows it.
	reporters: [['default', { summaryThreshold: 0 }]],
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// jest's 5 s default fails a test that starts server processes on a loaded 2-core machine; no
	// test here waits on a timer, so the bound only stops one that hangs.
	testTimeout: 30_000,
	// Two workers on a 2-core machine: most tests wait on their servers, and the fuzz test alone,
	// a third of the whole, no longer holds up the rest (docs/testing.md has the times).
	maxWorkers: 2,
	// How long a worker may take to exit once the run is over before jest kills it and warns of a
	// leak. Its default, 500 ms, was not enough beside the type check on a 2-core machine: workers
	// with nothing left open (no handle, timer or thread once told to end) exited 0.4 s after their
	// last suite, and jest, itself busy, read them as hung. A real leak still shows, 5 s later.
	workerGracefulExitTimeout: 5000,
	globalSetup: '<rootDir>/test/global-setup.cjs',
	globalTeardown: '<rootDir>/test/global-teardown.cjs',
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }] },
};
