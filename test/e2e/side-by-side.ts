/**
 * Scenarios that spend their time waiting on n8n (its minute polls, its executions), run at the same
 * time: the describe's `beforeAll` starts each, and each test awaits its own and fails with its own
 * error, so the describe takes as long as its longest scenario rather than their sum. A scenario
 * must not restart n8n, and must clean up after itself: the suite's after-each deactivation
 * (context.ts) runs between tests while the others still run, so a scenario activates through
 * `e2e.client`, not `e2e.activate`.
 */
export function sideBySide(scenarios: Record<string, () => Promise<void>>, timeout: number): void {
	const runs = new Map<string, Promise<void>>();
	beforeAll(() => {
		for (const [name, scenario] of Object.entries(scenarios)) {
			const run = scenario();
			// Read by its test; until then a failure is not an unhandled rejection.
			run.catch(() => undefined);
			runs.set(name, run);
		}
	});
	for (const name of Object.keys(scenarios)) it(name, () => runs.get(name)!, timeout);
}
