import type { E2e } from './context';

/**
 * Scenarios that spend their time waiting on n8n (its minute polls, its executions, its saves),
 * run at the same time: the describe's `beforeAll` starts each, and each test awaits its own and
 * fails with its own error, so the describe takes as long as its longest scenario rather than
 * their sum. A scenario must not restart n8n, and has an organization and workflows of its own.
 * What they activate is deactivated once all have ended (context.ts), not after a test.
 */
export function sideBySide(
	e2e: E2e,
	scenarios: Record<string, () => Promise<void>>,
	timeout: number,
): void {
	const runs = new Map<string, Promise<void>>();
	beforeAll(() => {
		e2e.sideBySideStarts();
		for (const [name, scenario] of Object.entries(scenarios)) {
			const run = scenario();
			// Read by its test; until then a failure is not an unhandled rejection.
			run.catch(() => undefined);
			runs.set(name, run);
		}
	});
	afterAll(async () => {
		await Promise.allSettled(runs.values());
		await e2e.sideBySideEnded();
	});
	for (const name of Object.keys(scenarios)) it(name, () => runs.get(name)!, timeout);
}
