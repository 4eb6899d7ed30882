// `npm run test:e2e`: the package in a real n8n, one process and queue mode (test/e2e/*.e2e.ts). One jest
// worker: one topology at a time.
module.exports = {
	// jest's transform cache stays in the clone, not in /tmp.
	cacheDirectory: '<rootDir>/node_modules/.cache/jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.ts'],
	maxWorkers: 1,
	testTimeout: 120_000,
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }] },
};
