// `npm run test:e2e`: the package in a real n8n (see test/e2e/harness.ts). One worker: one n8n.
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.ts'],
	maxWorkers: 1,
	testTimeout: 120_000,
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }] },
};
