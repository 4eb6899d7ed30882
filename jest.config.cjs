module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	globalSetup: '<rootDir>/test/global-setup.cjs',
	globalTeardown: '<rootDir>/test/global-teardown.cjs',
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }] },
};
