import { randomUUID } from 'node:crypto';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { eventually } from '../../../tooling/eventually';
import { patiently } from '../../../tooling/n8n/processes';
import { ApiClient, demoVersionsOf } from '../../../tooling/api/client';
import { bootstrapOrg, spawnServer } from '../../../tooling/api/server-process';
import {
	createSessionNode,
	example,
	webhookRows,
	workflowNode,
} from '../../../tooling/n8n/workflows';
import type { E2e } from '../context';

/** Bulk session creation: the example on a schedule, the API killed half-way (Retry On Fail), failed items on the error output. */
export function bulkScenarios(e2e: E2e): void {
	if (e2e.scope === 'full')
		describe('bulk session creation on a schedule (examples/bulk-session-creation.json)', () => {
			let workflowId: string;
			let workflow: any;
			let versionId: string;
			const sessions = async () =>
				(await e2e.org('bulk').client.getAll('/sessions?limit=200')).items;

			beforeAll(async () => {
				versionId = (await demoVersionsOf(e2e.org('bulk').client)).published;
				const credentialId = await e2e.credential(
					'Training Lab bulk',
					e2e.proxy.url,
					e2e.org('bulk').api_key,
				);
				({ id: workflowId, workflow } = await e2e.importExample('bulk-session-creation', {
					YOUR_PUBLISHED_LAB_VERSION_ID: versionId,
					YOUR_CREDENTIAL_ID: credentialId,
				}));
			});

			it(
				'creates every one of the 150 sessions exactly once, waiting out the 429s, with no failed item',
				async () => {
					e2e.proxy.exchanges.length = 0;
					const run = e2e.runOnSchedule(workflow, workflowId);
					// Another client of the same key spends the key's budget once the run has begun, so the
					// run meets 429s however slowly a busy machine lets it send.
					await eventually(
						() => e2e.proxy.exchanges.length > 0,
						'the run to begin',
						patiently(120_000, e2e.n8n.log),
					);
					const { client } = e2e.org('bulk');
					await Promise.all(Array.from({ length: 60 }, () => client.get('/me')));
					const execution = await run;
					const created = await sessions();
					expect(created).toHaveLength(150);
					expect(new Set(created.map((s: { title: string }) => s.title)).size).toBe(150);
					const statuses = e2e.proxy.exchanges.map((e) => e.status);
					expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
					expect(
						e2e.proxy.exchanges.filter(
							(e) => e.method === 'POST' && e.status === 201 && !e.replayed,
						),
					).toHaveLength(150);
					expect(execution.status).toBe('success');
					expect(e2e.topology.executors).toContain(e2e.executedBy(execution.id));
					const output = e2e.nodeOutput(execution, 'Create session');
					expect(output).toHaveLength(150);
					expect(output.filter((item) => item.error)).toEqual([]);
				},
				10 * 60_000,
			);

			it(
				'run again with requests forced to retry (answers lost on the way back), still creates no duplicate',
				async () => {
					e2e.proxy.exchanges.length = 0;
					let postCount = 0;
					e2e.proxy.lose = (req) => req.method === 'POST' && postCount++ % 7 === 0; // every 7th answer is lost
					e2e.proxy.losses = 20;
					const execution = await e2e.runOnSchedule(workflow, workflowId);
					e2e.proxy.losses = 0;
					expect(await sessions()).toHaveLength(150);
					const answered = e2e.proxy.exchanges.filter(
						(e) => e.method === 'POST' && e.status === 201,
					);
					const lost = answered.filter((e) => e.lost);
					expect(lost.length).toBeGreaterThan(0);
					expect(answered).toHaveLength(150 + lost.length); // each lost answer was asked for again
					expect(answered.every((e) => e.replayed)).toBe(true); // and nothing new was created
					expect(new Set(answered.map((e) => e.idempotencyKey)).size).toBe(150);
					expect(execution.status).toBe('success');
					expect(e2e.nodeOutput(execution, 'Create session').filter((item) => item.error)).toEqual(
						[],
					);
				},
				10 * 60_000,
			);
		});

	if (e2e.scope === 'full')
		describe('the API server killed in the middle of a bulk creation (Retry On Fail)', () => {
			it("every row's session exists exactly once after the API is started again", async () => {
				// An API server of its own (database, port), killed and started again on the same port.
				const databasePath = join(e2e.work, 'killed-api.sqlite');
				const { api_key: key } = bootstrapOrg(databasePath, 'E2E killed API', 'killed@e2e.test');
				const env = { DATABASE_PATH: databasePath, RATE_LIMIT_REQUESTS: '100000' };
				let server = await spawnServer(env, 'node', join(e2e.work, 'killed-api-1.log'));
				try {
					const api = new ApiClient(server.url, key);
					const { published } = await demoVersionsOf(api);
					const credentialId = await e2e.credential('Training Lab killed API', server.url, key);
					const path = randomUUID();
					const rows = Array.from({ length: 100 }, (_, index) => ({ title: `Row ${index + 1}` }));
					const start = webhookRows(path, rows);
					const bulk = example('bulk-session-creation', {
						YOUR_PUBLISHED_LAB_VERSION_ID: published,
						YOUR_CREDENTIAL_ID: credentialId,
					});
					// The example's Create session node (10 items a second), failing the run instead of the
					// item, and tried again by n8n: 5 tries, 5 s apart.
					const create = bulk.nodes.find(
						(node: { name: string }) => node.name === 'Create session',
					);
					delete create.onError;
					Object.assign(create, { retryOnFail: true, maxTries: 5, waitBetweenTries: 5000 });
					create.parameters.additionalFields = {};
					create.parameters.capacity = 10;
					const id = await e2e.create({
						name: 'Bulk creation while the API is killed',
						nodes: [...start.nodes, create],
						connections: {
							...start.connections,
							Rows: { main: [[{ node: 'Create session', type: 'main', index: 0 }]] },
						},
						settings: { executionOrder: 'v1' },
					});
					await e2e.activate(id);
					const sessionCount = () => {
						const db = new Database(databasePath, { readonly: true, fileMustExist: true });
						try {
							return (db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n;
						} finally {
							db.close();
						}
					};
					await eventually(
						async () =>
							(await fetch(`${e2e.n8n.webhookBase}/webhook/${path}`, { method: 'POST' })).ok,
						'the webhook',
						patiently(60_000),
					);

					await eventually(() => sessionCount() >= 50, 'half of the sessions', patiently(60_000));
					server.child.kill('SIGKILL');
					await server.exited;
					const killed = Date.now();
					const createdBeforeKill = sessionCount();
					// Down until the node has given up on a row (its own three tries of a request, so that
					// Retry On Fail runs it again): the port is held by a listener that reads each request's
					// Idempotency-Key and cuts the connection, as a server dying under its requests does.
					const port = Number(new URL(server.url).port);
					const tries = new Map<string, number>();
					const dead = createNetServer((socket) => {
						let head = '';
						socket.on('data', (chunk) => {
							head += chunk;
							const key = /^idempotency-key: *(\S+)/im.exec(head)?.[1];
							if (!key && !head.includes('\r\n\r\n')) return;
							if (key) tries.set(key, (tries.get(key) ?? 0) + 1);
							socket.destroy();
						});
					});
					await new Promise<void>((resolve) => dead.listen(port, '127.0.0.1', resolve));
					await eventually(
						() => [...tries.values()].some((count) => count >= 3),
						'the node to give up on a row',
						patiently(60_000),
					);
					await new Promise((resolve) => dead.close(resolve));
					const cut = [...tries.values()].reduce((sum, count) => sum + count, 0);
					server = await spawnServer(
						{ ...env, PORT: String(port) },
						'node',
						join(e2e.work, 'killed-api-2.log'),
					);

					const [execution] = await e2e.executions(
						id,
						(executions) => executions.length > 0 && executions[0].status !== 'running',
						'the run to end',
						120_000,
					);
					expect(execution.status).toBe('success');
					expect(await e2e.client.executions(id)).toHaveLength(1);
					const titles = (await api.getAll('/sessions?limit=200')).items.map(
						(session: { title: string }) => session.title,
					);
					expect(titles.sort()).toEqual(rows.map((row) => row.title).sort());
					console.log(
						`n8n ${e2e.n8n.version} (${e2e.topology.executors.join(', ')}): API killed after ${createdBeforeKill} ` +
							`of 100 creates, ${cut} requests cut while it was down (a row given up after 3 tries); the run ended "${execution.status}" ` +
							`${((Date.parse(execution.stoppedAt!) - killed) / 1000).toFixed(1)} s after the kill, ` +
							`with ${titles.length} sessions, each once`,
					);
				} finally {
					await server.stop();
				}
			}, 300_000);
		});

	describe('On Error: Continue (using error output)', () => {
		it("sends the failed item to the error output with the API's message and code, the others to the success output", async () => {
			const { client: api } = e2e.org('errors');
			const { published, draft } = await demoVersionsOf(api);
			const credentialId = await e2e.credential(
				'Training Lab errors',
				api.baseUrl,
				e2e.org('errors').api_key,
			);
			const path = randomUUID();
			const rows = [
				{ title: 'First', version: published },
				{ title: 'On a draft', version: draft },
				{ title: 'Third', version: published },
			];
			const start = webhookRows(path, rows);
			const workflow = {
				name: 'Sessions with an error output',
				nodes: [
					...start.nodes,
					createSessionNode(400, {
						title: '={{ $json.title }}',
						labVersion: '={{ $json.version }}',
						capacity: 10,
						credential: { id: credentialId, name: 'Training Lab errors' },
						extra: { onError: 'continueErrorOutput' },
					}),
					workflowNode('Created', 'n8n-nodes-base.noOp', 600, { typeVersion: 1, parameters: {} }),
					workflowNode('Failed', 'n8n-nodes-base.noOp', 600, { typeVersion: 1, parameters: {} }),
				],
				connections: {
					...start.connections,
					Rows: { main: [[{ node: 'Create session', type: 'main', index: 0 }]] },
					'Create session': {
						main: [
							[{ node: 'Created', type: 'main', index: 0 }],
							[{ node: 'Failed', type: 'main', index: 0 }],
						],
					},
				},
				settings: { executionOrder: 'v1' },
			};
			const id = await e2e.create(workflow);
			await e2e.activate(id);
			await e2e.postToWebhook(path);
			const execution = await e2e.firstExecution(id, 60_000);
			const created = e2e.nodeOutput(execution, 'Created');
			const failed = e2e.nodeOutput(execution, 'Failed');
			expect(created.map((item) => item.title)).toEqual(['First', 'Third']);
			expect(failed).toEqual([
				expect.objectContaining({
					error: expect.objectContaining({
						message: expect.stringMatching(/draft|publish/i),
						code: 'lab_version_not_published',
						httpCode: '409',
					}),
				}),
			]);
			const outputs = execution.data.resultData.runData['Create session'][0].data.main;
			expect(outputs[0].map((item: { pairedItem: unknown }) => item.pairedItem)).toEqual([
				{ item: 0 },
				{ item: 2 },
			]);
			expect(outputs[1].map((item: { pairedItem: unknown }) => item.pairedItem)).toEqual([
				{ item: 1 },
			]);
			const titles = (await api.getAll('/sessions?limit=200')).items.map(
				(session: { title: string }) => session.title,
			);
			expect(titles.sort()).toEqual(['First', 'Third']);
		}, 120_000);
	});
}
