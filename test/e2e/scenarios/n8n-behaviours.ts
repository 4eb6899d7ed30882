import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { eventually } from '../../../tooling/eventually';
import { patiently } from '../../../tooling/n8n/processes';
import { webhookChain, workflowNode } from '../../../tooling/n8n/workflows';
import type { E2e } from '../context';

/**
 * The behaviours of n8n itself that the package's guarantees rest on, each probed on its own with
 * n8n's nodes, so that the day an n8n release changes one, the failing test names it
 * (docs/n8n-findings.md, "What the package relies on", lists them with what the node does then).
 */
export function n8nBehaviourScenarios(e2e: E2e): void {
	describe('n8n behaviours the package relies on', () => {
		it('paired-item lineage: an item fanned out from an event finds that event with $(…).item', async () => {
			// intent.ts keys a create on the event its item descends from, found exactly like this.
			const path = randomUUID();
			const execution = await runThroughWebhook(
				e2e,
				path,
				[
					code('Events', 'return $json.body.events.map((id) => ({ json: { id } }));'),
					code(
						'Rows',
						'return $input.all().flatMap((item, index) => [1, 2].map((row) => ({ json: { row }, pairedItem: { item: index } })));',
					),
					code('Lineage', "return { json: { row: $json.row, event: $('Events').item.json.id } };", {
						mode: 'runOnceForEachItem',
					}),
				],
				{ events: ['first', 'second'] },
			);
			await behaviour('paired-item lineage', () =>
				expect(e2e.nodeOutput(execution, 'Lineage')).toEqual([
					{ row: 1, event: 'first' },
					{ row: 2, event: 'first' },
					{ row: 1, event: 'second' },
					{ row: 2, event: 'second' },
				]),
			);
		}, 120_000);

		it('execution custom data: a retry of a failed execution reads what the failed one set', async () => {
			// intent.ts keeps the first execution's id there, so that a retry's creates carry its keys.
			const path = randomUUID();
			const failed = await runThroughWebhook(
				e2e,
				path,
				[
					// Set in a node of its own: n8n 2.x runs a Code node in a task runner, and a node that
					// throws there sends back nothing it set.
					code(
						'Remember',
						"if (!$execution.customData.get('first')) $execution.customData.set('first', $execution.id);\nreturn $input.all();",
					),
					code(
						'Fail once',
						"const first = $execution.customData.get('first');\n" +
							"if (first === $execution.id) throw new Error('Failing the first execution on purpose');\n" +
							'return [{ json: { first: first ?? null, retry: $execution.id } }];',
					),
				],
				{},
				'error',
			);
			await e2e.retryByHand(failed.id);
			const [retry] = await e2e.executions(
				failed.workflowId,
				(all) => all.length === 2 && all[0].status === 'success',
				'the retry to succeed',
			);
			await behaviour('execution custom data kept by a retry', () =>
				expect(e2e.nodeOutput(retry, 'Fail once')).toEqual([{ first: failed.id, retry: retry.id }]),
			);
		}, 120_000);

		if (!e2e.topology.queue)
			it('crash recovery: nodes that had run before n8n died get one artificial item each', async () => {
				// intent.ts leaves such runs out when it counts the node's runs (recoveredRunsBefore).
				const path = randomUUID();
				const workflowId = await createThroughWebhook(e2e, path, [
					workflowNode('Before', 'n8n-nodes-base.noOp', 400, { typeVersion: 1, parameters: {} }),
					workflowNode('Hold', 'n8n-nodes-base.wait', 600, {
						typeVersion: 1.1,
						parameters: { amount: 50, unit: 'seconds' },
					}),
				]);
				await e2e.postToWebhook(path);
				const [running] = await eventually(
					async () => {
						const running = await e2e.client.runningExecutions(workflowId);
						return running.length === 1 && running;
					},
					'the execution to run',
					patiently(30_000, e2e.n8n.log),
				);
				// Killed once n8n's event log has recorded that the node before the wait has run.
				const eventLog = join(dirname(e2e.n8n.log), '.n8n', 'n8nEventLog.log');
				await eventually(
					() =>
						existsSync(eventLog) &&
						readFileSync(eventLog, 'utf8')
							.split('\n')
							.some(
								(line) =>
									line.includes('"n8n.node.finished"') &&
									line.includes(`"executionId":"${running.id}"`) &&
									line.includes('"nodeName":"Before"'),
							),
					"n8n's event log to record the node before the wait",
					patiently(30_000, e2e.n8n.log),
				);
				await e2e.n8n.kill();
				await e2e.n8n.restart();
				// n8n marks the execution crashed, then writes its recovered run data (with SQLite and no
				// read pool, in two statements): it is read once n8n has said its recovery is over.
				const recovered = 'Found unfinished executions: ';
				await eventually(
					() =>
						readFileSync(e2e.n8n.log, 'utf8')
							.split('\n')
							.filter((line) => line.includes(recovered))
							.some((line) =>
								line
									.slice(line.indexOf(recovered) + recovered.length)
									.split(', ')
									.includes(running.id),
							),
					'n8n to say it recovered the execution from its event log',
					patiently(60_000, e2e.n8n.log),
				);
				const [crashed] = await e2e.executions(
					workflowId,
					(all) => all.length === 1 && all[0].status === 'crashed',
					'n8n to mark the execution crashed',
				);
				await behaviour('artificial items of a recovered execution', () =>
					expect(e2e.nodeOutput(crashed, 'Before')).toEqual([
						expect.objectContaining({ isArtificialRecoveredEventItem: true }),
					]),
				);
			}, 240_000);
	});
}

/** Rethrows a failed expectation (or wait) with the n8n behaviour it checks in front, as the report's first line. */
export async function behaviour<T>(name: string, check: () => T | Promise<T>): Promise<T> {
	try {
		return await check();
	} catch (error) {
		(error as Error).message =
			`n8n no longer behaves as the package relies on: ${name}\n\n${(error as Error).message}`;
		throw error;
	}
}

function code(name: string, jsCode: string, extra: object = {}) {
	return { name, jsCode, extra };
}

type Step = ReturnType<typeof code> | ReturnType<typeof workflowNode>;

/** A workflow: a Webhook at `path` (answered on receipt), then `steps` one after the other. */
async function createThroughWebhook(e2e: E2e, path: string, steps: Step[]): Promise<string> {
	const nodes = steps.map((step, index) =>
		'jsCode' in step
			? workflowNode(step.name, 'n8n-nodes-base.code', 200 * (index + 1), {
					typeVersion: 2,
					parameters: { jsCode: step.jsCode, ...step.extra },
				})
			: step,
	);
	const id = await e2e.create({
		name: `n8n behaviour ${path}`,
		...webhookChain(path, nodes),
		settings: { executionOrder: 'v1' },
	});
	await e2e.activate(id);
	return id;
}

/** Runs `steps` behind a webhook once with `body`; returns the execution once it has ended as `status`. */
async function runThroughWebhook(
	e2e: E2e,
	path: string,
	steps: Step[],
	body: object,
	status = 'success',
) {
	const workflowId = await createThroughWebhook(e2e, path, steps);
	await e2e.postToWebhook(path, body);
	const [execution] = await e2e.executions(
		workflowId,
		(all) => all.length === 1 && all[0].status === status,
		`the execution to end as ${status}`,
	);
	return { ...execution, workflowId };
}
