module.exports = {
	// jest's transform cache stays in the clone, not in /tmp.
	cacheDirectory: '<rootDir>/node_modules/.cache/jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	globalSetup: '<rootDir>/test/global-setup.cjs',
	globalTeardown: '<rootDir>/test/global-teardown.cjs',
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }] },
};
