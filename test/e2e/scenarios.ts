import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { Webhook } from 'standardwebhooks';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ApiClient, demoVersionsOf } from '../../tooling/api/client';
import { LossyProxy } from '../support/lossy-proxy';
import { Receiver } from '../support/receiver';
import { ensureN8n, packPackage, type N8nInstall } from '../../tooling/n8n/install';
import { example, webhookNode, webhookRows, workflowNode } from '../../tooling/n8n/workflows';
import { N8nClient } from '../../tooling/n8n/client';
import { tempRoot } from '../../tooling/processes';
import { patiently, type N8n } from '../../tooling/n8n/processes';
import { STARTED_LOG_LINE, type N8nLine } from '../../tooling/n8n/lines';
import { aiToolScenarios } from './ai-scenarios';
import { oncePerEventScenarios } from './once-per-event-scenarios';
import { bootstrapOrg, spawnServer, type ServerProcess } from '../../tooling/api/server-process';
import { eventually } from '../../tooling/eventually';

/** Which n8n a suite runs, and how: one process, or scaled out in queue mode. */
export interface Topology {
	line: N8nLine;
	/** Starts n8n with the packed package (`tarball`) installed, every file below `work`. */
	start(install: N8nInstall, work: string, tarball: string): Promise<N8n>;
	/** Which processes run executions: `['main']`, or the workers' names. */
	executors: string[];
	/** Scaled out: executions queued in Redis for workers. */
	queue: boolean;
}

/**
 * Every scenario, against a real n8n of `topology.line` in `topology` with the packed package installed and one
 * API server (rate limit 60 requests per 10 s), all on free loopback ports, driven over HTTP.
 */
export function endToEndSuite(topology: Topology): void {
	let work: string;
	let api: ServerProcess;
	let n8n: N8n;
	let client: N8nClient;
	let proxy: LossyProxy;
	let notices: Receiver;
	let databasePath: string;
	let pollingWorkflowId: string;
	const orgs: Record<string, { org: { id: string }; api_key: string; client: ApiClient }> = {};

	beforeAll(async () => {
		work = tempRoot();
		const install = ensureN8n(topology.line);
		const tarball = packPackage(work);
		databasePath = join(work, 'api.sqlite');
		for (const [name, email] of [
			['bulk', 'bulk@e2e.test'],
			['people', 'people@e2e.test'],
			['closing', 'closing@e2e.test'],
			['polling', 'polling@e2e.test'],
			['burst', 'burst@e2e.test'],
			['errors', 'errors@e2e.test'],
			['tools', 'tools@e2e.test'],
			['agent', 'agent@e2e.test'],
			['retry', 'retry@e2e.test'],
			['outage', 'outage@e2e.test'],
			['crash', 'crash@e2e.test'],
			['redisOnReceipt', 'redis-on-receipt@e2e.test'],
			['redisWhenFinished', 'redis-when-finished@e2e.test'],
			['onceOnReceipt', 'once-on-receipt@e2e.test'],
			['onceWhenFinished', 'once-when-finished@e2e.test'],
			['dedupeAfterTrigger', 'dedupe-after-trigger@e2e.test'],
			['dedupeBeforeEffect', 'dedupe-before-effect@e2e.test'],
		]) {
			orgs[name] = {
				...bootstrapOrg(databasePath, `E2E ${name}`, email),
				client: undefined as never,
			};
		}
		api = await spawnServer(
			{
				DATABASE_PATH: databasePath,
				WEBHOOK_ALLOW_INSECURE_URLS: 'true',
				RATE_LIMIT_REQUESTS: '60',
				RATE_LIMIT_WINDOW_S: '10',
				// Retries within minutes rather than hours, so that n8n's downtime is waited out in a test.
				WEBHOOK_RETRY_SCHEDULE_S: ['1,2,4,8', ...Array(24).fill('10')].join(','),
			},
			'node',
			join(work, 'api-server.log'),
		);
		for (const entry of Object.values(orgs)) entry.client = new ApiClient(api.url, entry.api_key);
		proxy = await LossyProxy.start(api.url);
		notices = await Receiver.start();
		n8n = await topology.start(install, work, tarball);
		client = new N8nClient(n8n);
		await client.login();
		// n8n polls at most once a minute: the polling scenario's workflow is active from the start, so
		// that its first poll (which records where the activity log stands) happens meanwhile.
		const pollingCredential = await credential(
			'Training Lab polling',
			orgs.polling.client.baseUrl,
			orgs.polling.api_key,
		);
		pollingWorkflowId = (
			await client.api<{ id: string }>(
				'POST',
				'/workflows',
				activityWorkflow('Poll the activity log', pollingCredential, ['member.removed']),
			)
		).id;
		await client.api('POST', `/workflows/${pollingWorkflowId}/activate`);
	}, 20 * 60_000);

	afterAll(async () => {
		await n8n?.stop();
		await api?.stop();
		await proxy?.stop();
		await notices?.stop();
		if (work && !process.env.TRAININGLAB_E2E_KEEP) rmSync(work, { recursive: true, force: true });
		else if (work) console.log(`e2e files kept in ${work}`);
	});

	async function credential(name: string, baseUrl: string, apiKey: string): Promise<string> {
		return (await client.createCredential(name, 'trainingLabApi', { baseUrl, apiKey })).id;
	}

	async function importExample(
		name: string,
		replacements: Record<string, string>,
	): Promise<{ id: string; workflow: any }> {
		const workflow = example(name, replacements);
		const created = await client.api<{ id: string }>('POST', '/workflows', workflow);
		return { id: created.id, workflow };
	}

	function nodeOutput(execution: { data: any }, node: string): any[] {
		return (execution.data.resultData.runData[node]?.[0]?.data?.main?.[0] ?? []).map(
			(item: { json: unknown }) => item.json,
		);
	}

	/** The process that ran an execution: a worker whose log says it started it, or else main. */
	function executedBy(executionId: string): string {
		const worker = Object.entries(n8n.workerLogs).find(([, log]) =>
			readFileSync(log, 'utf8').includes(`Worker started execution ${executionId} (`),
		);
		return worker?.[0] ?? 'main';
	}

	/**
	 * Waits for the first execution of a workflow to succeed and checks it ran where the topology runs
	 * executions (a worker in queue mode).
	 */
	async function firstExecution(
		workflowId: string,
		timeoutMs: number,
	): Promise<{ id: string; status: string; data: any }> {
		const [execution] = await eventually(
			async () => {
				const executions = await client.executions(workflowId);
				return executions.length > 0 && executions[0].status === 'success' && executions;
			},
			'the execution',
			patiently(timeoutMs, n8n.log),
		);
		expect(topology.executors).toContain(executedBy(execution.id));
		return execution;
	}

	/** A workflow of one Activity Trigger polling every minute (n8n polls at most once a minute). */
	function activityWorkflow(name: string, credentialId: string, events: string[]) {
		return {
			name,
			nodes: [
				{
					id: randomUUID(),
					name: 'Activity',
					type: 'n8n-nodes-traininglab.trainingLabActivityTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, events },
					credentials: { trainingLabApi: { id: credentialId, name } },
				},
			],
			connections: {},
			settings: { executionOrder: 'v1' },
		};
	}

	/**
	 * Runs a schedule-triggered workflow for real, once: its Monday schedule is replaced by a one-off
	 * time 10 seconds ahead (cron with seconds, in UTC), the workflow is activated, the execution
	 * awaited, and the workflow deactivated again.
	 */
	async function runOnSchedule(
		workflow: any,
		workflowId: string,
	): Promise<{ id: string; status: string; data: any }> {
		const at = new Date(Date.now() + 10_000);
		const cron = `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} ${at.getUTCDate()} ${at.getUTCMonth() + 1} *`;
		workflow.nodes[0].parameters.rule = {
			interval: [{ field: 'cronExpression', expression: cron }],
		};
		workflow.settings = { ...workflow.settings, timezone: 'UTC' };
		await client.api('PUT', `/workflows/${workflowId}`, {
			name: workflow.name,
			nodes: workflow.nodes,
			connections: workflow.connections,
			settings: workflow.settings,
		});
		const before = new Set((await client.executions(workflowId)).map((execution) => execution.id));
		await client.api('POST', `/workflows/${workflowId}/activate`);
		const execution = await eventually(
			async () => {
				const found = (await client.executions(workflowId)).find((e) => !before.has(e.id));
				return found && !['new', 'running', 'waiting'].includes(found.status) && found;
			},
			'the scheduled execution to finish',
			patiently(8 * 60_000, n8n.log),
		);
		await client.api('POST', `/workflows/${workflowId}/deactivate`);
		return execution;
	}

	async function endpointsOf(
		org: string,
	): Promise<Array<{ id: string; url: string; event_types: string[] }>> {
		return (await orgs[org].client.get(`/orgs/${orgs[org].org.id}/webhooks`)).body;
	}

	/**
	 * Waits until every delivery to the organisation's endpoints is final and succeeded: with nothing
	 * pending or to be retried, no further execution can be started by them. Read from the API
	 * server's database, since a closed organisation's key can no longer ask.
	 */
	async function deliveriesSettled(org: string, timeoutMs = 60_000): Promise<Delivery[]> {
		const waiting = patiently(timeoutMs, n8n.log);
		return eventually(
			async () => {
				const deliveries = deliveriesOf(org);
				return (
					deliveries.length > 0 && deliveries.every((d) => d.status === 'succeeded') && deliveries
				);
			},
			'every delivery to be final',
			{
				...waiting,
				explain: () =>
					`${JSON.stringify(deliveriesOf(org).filter((d) => d.status !== 'succeeded'))}\n${waiting.explain!()}`,
			},
		);
	}

	interface Delivery {
		event_id: string;
		status: string;
		attempts: number;
		last_status_code: number | null;
		last_error: string | null;
	}

	/** The organisation's deliveries as the API server's database holds them. */
	function deliveriesOf(org: string): Delivery[] {
		const db = new Database(databasePath, { readonly: true });
		try {
			return db
				.prepare(
					`SELECT d.event_id, d.status, d.attempts, d.last_status_code, d.last_error
					 FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
					 WHERE w.org_id = ?`,
				)
				.all(orgs[org].org.id) as Delivery[];
		} finally {
			db.close();
		}
	}

	/** Activates a trigger workflow: n8n has published it, and its endpoint is registered in the API. */
	async function activate(workflowId: string, org: string, webhookUrl: string): Promise<void> {
		await client.activate(workflowId);
		await eventually(
			async () => (await endpointsOf(org)).some((endpoint) => endpoint.url === webhookUrl),
			'the trigger to register its endpoint',
			patiently(60_000, n8n.log),
		);
	}

	/** Deactivates a trigger workflow and waits until the organisation has no endpoint left. */
	async function deactivate(workflowId: string, org: string): Promise<void> {
		await client.api('POST', `/workflows/${workflowId}/deactivate`);
		await eventually(
			async () => (await endpointsOf(org)).length === 0,
			'every endpoint to be deleted',
			patiently(30_000, n8n.log),
		);
	}

	/**
	 * An active copy of examples/react-to-member-removal.json on its own webhook path, for the
	 * organisation `org` (its credential named after it), which ends by posting each notice to the
	 * `notices` receiver (`noticesSent`); `adjust` changes the example first. Returns the workflow's id.
	 */
	async function memberRemovalTrigger(
		org: string,
		adjust?: (workflow: any) => void,
	): Promise<string> {
		const { client: api, api_key } = orgs[org];
		const credentialId = await credential(`Training Lab ${org}`, api.baseUrl, api_key);
		const workflow = example('react-to-member-removal', { YOUR_CREDENTIAL_ID: credentialId });
		workflow.nodes[0].webhookId = randomUUID();
		adjust?.(workflow);
		// The notice leaves n8n: an event run twice under one execution id shows here, not in n8n's list.
		workflow.nodes.push(noticeNode(org, 'user_id', '={{ $json.user_id }}', 330));
		workflow.connections['Offboarding notice'] = {
			main: [[{ node: 'Send notice', type: 'main', index: 0 }]],
		};
		const { id } = await client.api<{ id: string }>('POST', '/workflows', workflow);
		await activate(id, org, `${n8n.webhookBase}/webhook/${workflow.nodes[0].webhookId}/webhook`);
		return id;
	}

	/**
	 * Adjusts the member-removal example: Acknowledge Deliveries "when the workflow has finished", and
	 * a pause of `seconds` before the notice, so that executions are running when a part goes down.
	 */
	function answeredWhenFinished(seconds: number) {
		return (workflow: any) => {
			workflow.nodes[0].parameters.acknowledge = 'whenFinished';
			workflow.nodes.push(
				workflowNode('Pause', 'n8n-nodes-base.wait', 110, {
					typeVersion: 1.1,
					parameters: { resume: 'timeInterval', amount: seconds, unit: 'seconds' },
				}),
			);
			workflow.connections = {
				'Member removed': { main: [[{ node: 'Pause', type: 'main', index: 0 }]] },
				Pause: { main: [[{ node: 'Offboarding notice', type: 'main', index: 0 }]] },
			};
		};
	}

	/** Waits until the workflow has `count` successful executions (a member-removal trigger's); returns them. */
	async function successfulExecutions(workflowId: string, count: number) {
		return eventually(
			async () => {
				const done = (await client.executions(workflowId)).filter((e) => e.status === 'success');
				return done.length >= count && done;
			},
			'a successful execution per removal',
			patiently(300_000, n8n.log),
		);
	}

	/** A node named "Send notice" that posts `{ [field]: value }` to the `notices` receiver at `/<path>`. */
	function noticeNode(path: string, field: string, value: string, x: number) {
		return workflowNode('Send notice', 'n8n-nodes-base.httpRequest', x, {
			typeVersion: 4.2,
			parameters: {
				method: 'POST',
				url: `${notices.url}/${path}`,
				sendBody: true,
				bodyParameters: { parameters: [{ name: field, value }] },
				options: {},
			},
		});
	}

	/** The `field` of every notice posted to `/<path>` (see `noticeNode`), once per notice, sorted. */
	function noticesSent(path: string, field = 'user_id'): string[] {
		return notices
			.at(`/${path}`)
			.map((notice) => (JSON.parse(notice.body) as Record<string, string>)[field])
			.sort();
	}

	/** The members the successful executions of the member-removal example notified, sorted. */
	function notifiedMembers(executions: Array<{ status: string; data: any }>): string[] {
		return executions
			.filter((execution) => execution.status === 'success')
			.flatMap((execution) => nodeOutput(execution, 'Offboarding notice'))
			.map((item) => item.user_id)
			.sort();
	}

	/** Adds `count` trainers to the organisation `org`, one after another; returns them as the API answered. */
	async function addTrainers(org: string, count: number): Promise<Array<{ user_id: string }>> {
		const {
			client: api,
			org: { id: orgId },
		} = orgs[org];
		const members = [];
		for (let i = 0; i < count; i++)
			members.push(
				(
					await api.post(`/orgs/${orgId}/members`, {
						email: `${org}-${i}@e2e.test`,
						name: `${org[0].toUpperCase()}${org.slice(1)} ${i}`,
						role: 'trainer',
					})
				).body,
			);
		return members;
	}

	describe('bulk session creation on a schedule (examples/bulk-session-creation.json)', () => {
		let workflowId: string;
		let workflow: any;
		let versionId: string;
		const sessions = async () => (await orgs.bulk.client.getAll('/sessions?limit=200')).items;

		beforeAll(async () => {
			versionId = (await demoVersionsOf(orgs.bulk.client)).published;
			const credentialId = await credential('Training Lab bulk', proxy.url, orgs.bulk.api_key);
			({ id: workflowId, workflow } = await importExample('bulk-session-creation', {
				YOUR_PUBLISHED_LAB_VERSION_ID: versionId,
				YOUR_CREDENTIAL_ID: credentialId,
			}));
		});

		it(
			'creates every one of the 150 sessions exactly once, waiting out the 429s, with no failed item',
			async () => {
				proxy.exchanges.length = 0;
				const execution = await runOnSchedule(workflow, workflowId);
				const created = await sessions();
				expect(created).toHaveLength(150);
				expect(new Set(created.map((s: { title: string }) => s.title)).size).toBe(150);
				const statuses = proxy.exchanges.map((e) => e.status);
				expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
				expect(
					proxy.exchanges.filter((e) => e.method === 'POST' && e.status === 201 && !e.replayed),
				).toHaveLength(150);
				expect(execution.status).toBe('success');
				expect(topology.executors).toContain(executedBy(execution.id));
				const output = nodeOutput(execution, 'Create session');
				expect(output).toHaveLength(150);
				expect(output.filter((item) => item.error)).toEqual([]);
			},
			10 * 60_000,
		);

		it(
			'run again with requests forced to retry (answers lost on the way back), still creates no duplicate',
			async () => {
				proxy.exchanges.length = 0;
				let postCount = 0;
				proxy.lose = (req) => req.method === 'POST' && postCount++ % 7 === 0; // every 7th answer is lost
				proxy.losses = 20;
				const execution = await runOnSchedule(workflow, workflowId);
				proxy.losses = 0;
				expect(await sessions()).toHaveLength(150);
				const answered = proxy.exchanges.filter((e) => e.method === 'POST' && e.status === 201);
				const lost = answered.filter((e) => e.lost);
				expect(lost.length).toBeGreaterThan(0);
				expect(answered).toHaveLength(150 + lost.length); // each lost answer was asked for again
				expect(answered.every((e) => e.replayed)).toBe(true); // and nothing new was created
				expect(new Set(answered.map((e) => e.idempotencyKey)).size).toBe(150);
				expect(execution.status).toBe('success');
				expect(nodeOutput(execution, 'Create session').filter((item) => item.error)).toEqual([]);
			},
			10 * 60_000,
		);
	});

	describe('the trigger (examples/react-to-member-removal.json)', () => {
		let workflowId: string;
		let webhookUrl: string;

		beforeAll(async () => {
			const credentialId = await credential('Training Lab people', api.url, orgs.people.api_key);
			const { id, workflow } = await importExample('react-to-member-removal', {
				YOUR_CREDENTIAL_ID: credentialId,
			});
			workflowId = id;
			webhookUrl = `${n8n.webhookBase}/webhook/${workflow.nodes[0].webhookId}/webhook`;
			await activate(workflowId, 'people', webhookUrl);
		}, 120_000);

		it('registered exactly one endpoint for its URL with its events', async () => {
			expect(await endpointsOf('people')).toEqual([
				expect.objectContaining({ url: webhookUrl, event_types: ['member.removed'] }),
			]);
		});

		it("removing a member through the API starts exactly one execution carrying the member's id and e-mail", async () => {
			const members = (await orgs.people.client.get(`/orgs/${orgs.people.org.id}/members`)).body;
			const trainer = members.find((m: { role: string }) => m.role === 'trainer');
			expect(
				(await orgs.people.client.delete(`/orgs/${orgs.people.org.id}/members/${trainer.user_id}`))
					.status,
			).toBe(204);
			const execution = await firstExecution(workflowId, 30_000);
			expect(nodeOutput(execution, 'Offboarding notice')).toEqual([
				expect.objectContaining({
					user_id: trainer.user_id,
					email: trainer.email,
					role: 'trainer',
					removed_by: 'people@e2e.test',
				}),
			]);
			expect(await deliveriesSettled('people')).toEqual([expect.objectContaining({ attempts: 1 })]);
			expect(await client.executions(workflowId)).toHaveLength(1);
		});

		it('a forged delivery (no or a wrong signature) gets 401 and starts no execution', async () => {
			const before = (await client.executions(workflowId)).length;
			const body = JSON.stringify({
				id: 'forged',
				type: 'member.removed',
				occurred_at: new Date().toISOString(),
				org_id: orgs.people.org.id,
				actor: 'mallory@x.test',
				data: {},
			});
			const unsigned = await fetch(webhookUrl, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body,
			});
			expect(unsigned.status).toBe(401);
			const timestamp = Math.floor(Date.now() / 1000);
			// Signed as a Standard Webhooks sender would, with a secret that is not the endpoint's.
			const wrong = new Webhook(Buffer.alloc(32, 7).toString('base64')).sign(
				'forged',
				new Date(timestamp * 1000),
				body,
			);
			const forged = await fetch(webhookUrl, {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					'webhook-id': 'forged',
					'webhook-timestamp': String(timestamp),
					'webhook-signature': wrong,
				},
				body,
			});
			expect(forged.status).toBe(401);
			// A real, signed event after the forged ones: once its execution is there, the forged ones added none.
			const members = (await orgs.people.client.get(`/orgs/${orgs.people.org.id}/members`)).body;
			const sentinel = members.find((m: { role: string }) => m.role === 'trainer');
			await orgs.people.client.delete(`/orgs/${orgs.people.org.id}/members/${sentinel.user_id}`);
			const executions = await eventually(
				async () => {
					const all = await client.executions(workflowId);
					return all.length > before && all[0].status === 'success' && all;
				},
				"the sentinel's execution",
				patiently(30_000, n8n.log),
			);
			expect(executions).toHaveLength(before + 1);
			expect(nodeOutput(executions[0], 'Offboarding notice')).toEqual([
				expect.objectContaining({ user_id: sentinel.user_id }),
			]);
		});

		it('deactivating deletes the endpoint; activating twice in a row leaves exactly one', async () => {
			await deactivate(workflowId, 'people');
			await client.api('POST', `/workflows/${workflowId}/activate`);
			await activate(workflowId, 'people', webhookUrl);
			expect(await endpointsOf('people')).toEqual([expect.objectContaining({ url: webhookUrl })]);
			// Deactivation deletes the endpoint the trigger knows; a duplicate registered by the second
			// activation would be left behind, and the endpoints would never reach zero.
			await deactivate(workflowId, 'people');
		});
	});

	describe('the trigger on organization closure (examples/react-to-organization-closure.json)', () => {
		it('closing the organization starts exactly one execution carrying the closure', async () => {
			const credentialId = await credential('Training Lab closing', api.url, orgs.closing.api_key);
			const { id, workflow } = await importExample('react-to-organization-closure', {
				YOUR_CREDENTIAL_ID: credentialId,
			});
			const webhookUrl = `${n8n.webhookBase}/webhook/${workflow.nodes[0].webhookId}/webhook`;
			await activate(id, 'closing', webhookUrl);

			const closed = (await orgs.closing.client.post(`/orgs/${orgs.closing.org.id}/close`)).body;
			const execution = await firstExecution(id, 30_000);
			expect(nodeOutput(execution, 'Closure record')).toEqual([
				{
					org_id: orgs.closing.org.id,
					name: 'E2E closing',
					slug: 'e2e-closing',
					closed_at: closed.closed_at,
					closed_by: 'closing@e2e.test',
				},
			]);
			expect(await deliveriesSettled('closing')).toEqual([
				expect.objectContaining({ attempts: 1 }),
			]);
			expect(await client.executions(id)).toHaveLength(1);
		}, 120_000);
	});

	describe('a burst of deliveries', () => {
		it('20 members removed at once start 20 executions, one per member, spread over the executors', async () => {
			const { client: api, org } = orgs.burst;
			const id = await memberRemovalTrigger('burst');
			const members = await addTrainers('burst', 20);
			await Promise.all(
				members.map((member) => api.delete(`/orgs/${org.id}/members/${member.user_id}`)),
			);
			const executions = await eventually(
				async () => {
					const all = await client.executions(id);
					return all.length >= 20 && all.every((e) => e.status === 'success') && all;
				},
				'an execution per removal',
				patiently(120_000, n8n.log),
			);
			expect(await deliveriesSettled('burst')).toHaveLength(20);
			expect(await client.executions(id)).toHaveLength(20);
			const removed = executions.flatMap((execution) =>
				nodeOutput(execution, 'Offboarding notice').map((item) => item.user_id),
			);
			expect(removed.sort()).toEqual(members.map((member) => member.user_id).sort());
			expect(noticesSent('burst')).toEqual(members.map((member) => member.user_id).sort());
			expect(new Set(executions.map((execution) => executedBy(execution.id)))).toEqual(
				new Set(topology.executors),
			);
			await client.api('POST', `/workflows/${id}/deactivate`);
		}, 180_000);
	});

	describe('n8n down while events happen', () => {
		// n8n's webhooks are reached through a readiness gate (as behind a load balancer): starting up,
		// n8n answers every request with "200 n8n is starting up", which the API takes as delivered.
		it(
			'every event of the downtime starts exactly one execution once n8n is back',
			async () => {
				const { client: api, org } = orgs.outage;
				const id = await memberRemovalTrigger('outage');
				const members = await addTrainers('outage', 20);

				await n8n.kill();
				for (const member of members)
					expect((await api.delete(`/orgs/${org.id}/members/${member.user_id}`)).status).toBe(204);
				// Every delivery has been tried and refused while n8n was away.
				await eventually(
					async () => {
						const deliveries = deliveriesOf('outage');
						return (
							deliveries.length === 20 &&
							deliveries.every((d) => d.attempts >= 1 && d.status !== 'succeeded')
						);
					},
					'every delivery to have failed once',
					patiently(60_000),
				);
				const restarted = Date.now();
				const turnedAwayBefore = n8n.gate!.turnedAway;
				await n8n.restart();
				const executions = await eventually(
					async () => {
						const all = await client.executions(id);
						return all.length >= 20 && all.every((e) => e.status === 'success') && all;
					},
					'an execution per removal after the restart',
					patiently(240_000, n8n.log),
				);
				const settled = await deliveriesSettled('outage');
				expect(await client.executions(id)).toHaveLength(20);
				const removed = executions.flatMap((execution) =>
					nodeOutput(execution, 'Offboarding notice').map((item) => item.user_id),
				);
				expect(removed.sort()).toEqual(members.map((member) => member.user_id).sort());
				expect(noticesSent('outage')).toEqual(members.map((member) => member.user_id).sort());
				expect(settled.every((delivery) => delivery.attempts >= 2)).toBe(true);
				const lastStarted = Math.max(
					...executions.map((execution) => Date.parse(execution.startedAt)),
				);
				console.log(
					`n8n ${n8n.line} (${topology.executors.join(', ')}): 20 events during the downtime, ` +
						`${executions.length} executions, the last ${((lastStarted - restarted) / 1000).toFixed(1)} s ` +
						`after the restart began; attempts per delivery ${Math.min(...settled.map((d) => d.attempts))}–${Math.max(...settled.map((d) => d.attempts))}; ` +
						`${n8n.gate!.turnedAway - turnedAwayBefore} turned away by the readiness gate while n8n started`,
				);
				await client.api('POST', `/workflows/${id}/deactivate`);
			},
			8 * 60_000,
		);

		it(
			'a stream of requests through a restart: each one the gate lets in is answered and runs once',
			async () => {
				// A request every 25 ms while n8n is killed with 10 executions running (held by a 5 s pause),
				// started again and serving, to a workflow that sends a notice per request. n8n 1.x serves
				// webhooks while it starts; a request that came in just before it started the executions it
				// found "new" ran twice (one execution id) and was never answered, unless the gate waited
				// for n8n's start to end.
				const path = `restart-stream-${randomUUID()}`;
				const { id } = await client.api<{ id: string }>('POST', '/workflows', {
					name: 'Restart stream',
					settings: { executionOrder: 'v1' },
					nodes: [
						webhookNode(path, 'lastNode'),
						workflowNode('Pause', 'n8n-nodes-base.wait', 200, {
							typeVersion: 1.1,
							parameters: {
								resume: 'timeInterval',
								amount: "={{ $json.body.request.startsWith('killed') ? 5 : 0 }}",
								unit: 'seconds',
							},
						}),
						noticeNode(path, 'request', '={{ $json.body.request }}', 400),
					],
					connections: {
						Webhook: { main: [[{ node: 'Pause', type: 'main', index: 0 }]] },
						Pause: { main: [[{ node: 'Send notice', type: 'main', index: 0 }]] },
					},
				});
				await client.activate(id);
				const url = `${n8n.webhookBase}/webhook/${path}`;
				const post = (request: string) =>
					fetch(url, {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({ request }),
						// Answered at once when n8n runs it (the killed ones after their pause); a minute means never.
						signal: AbortSignal.timeout(60_000),
					});
				const killed = Array.from({ length: 10 }, (_, index) =>
					post(`killed ${index}`).catch(() => undefined),
				);
				await eventually(
					async () => (await client.runningExecutions(id)).length === 10,
					'10 executions running',
					patiently(60_000, n8n.log),
				);
				await n8n.kill();
				await Promise.all(killed);
				const gate = n8n.gate!;
				const restart = { state: 'running' as 'running' | 'done' | 'failed' };
				const restarted = n8n.restart().then(
					() => void (restart.state = 'done'),
					(error: unknown) => {
						restart.state = 'failed';
						throw error;
					},
				);
				// Until n8n has started (the main process says so) and the gate has let in 40 more.
				let letInWhenStarted: number | undefined;
				const answers: Array<Promise<number | 'unanswered'>> = [];
				for (
					let request = 0;
					restart.state === 'running' ||
					(restart.state === 'done' &&
						(letInWhenStarted === undefined || gate.letIn - letInWhenStarted < 40));
					request++
				) {
					if (
						letInWhenStarted === undefined &&
						restart.state === 'done' &&
						n8n.processes.main.hasLogged(STARTED_LOG_LINE)
					)
						letInWhenStarted = gate.letIn;
					const answer = post(String(request)).then(
						async (response) => {
							await response.arrayBuffer();
							return response.status;
						},
						() => 'unanswered' as const,
					);
					answers.push(answer);
					await new Promise((resolve) => setTimeout(resolve, 25));
				}
				await restarted;
				const statuses = await Promise.all(answers);
				const letIn = statuses.flatMap((status, request) =>
					status === 200 ? [String(request)] : [],
				);
				const unanswered = statuses.flatMap((status, request) =>
					status === 'unanswered' ? [request] : [],
				);
				expect(unanswered).toEqual([]);
				// Turned away by the gate (503, or 502 when n8n went away after the gate's check): nothing else.
				expect(statuses.filter((status) => ![200, 502, 503].includes(status as number))).toEqual(
					[],
				);
				const noticed = noticesSent(path, 'request').filter(
					(request) => !request.startsWith('killed'),
				);
				expect(noticed).toEqual(letIn.sort());
				console.log(
					`n8n ${n8n.line}: ${statuses.length} requests through a restart, ${letIn.length} let in, ` +
						`each answered and run once; ${statuses.length - letIn.length} turned away`,
				);
				await client.api('POST', `/workflows/${id}/deactivate`);
			},
			8 * 60_000,
		);
	});

	describe('n8n killed while triggered executions run (Acknowledge Deliveries: when the workflow has finished)', () => {
		it(
			'every event still ends in exactly one successful execution',
			async () => {
				const { client: api, org } = orgs.crash;
				// A 5 s pause before the notice: executions are running when the executor is killed.
				const id = await memberRemovalTrigger('crash', answeredWhenFinished(5));
				const members = await addTrainers('crash', 10);
				await Promise.all(
					members.map((member) => api.delete(`/orgs/${org.id}/members/${member.user_id}`)),
				);
				// The first executor (n8n itself, or the first worker) is killed while it runs executions.
				const victim = topology.executors[0];
				const running = await eventually(
					async () => {
						const all = await client.runningExecutions(id);
						// Every event begun (n8n 2.x starts at boot the executions it had accepted but not
						// begun: such an event would also come again from the API, and run twice).
						const onVictim = all.filter((execution) => executedBy(execution.id) === victim);
						return all.length === 10 && onVictim.length > 0 && all;
					},
					`executions running on ${victim}`,
					patiently(60_000, n8n.log),
				);
				await n8n.processes[victim].kill();
				const killed = Date.now();
				// Started again while the API retries (a queue-mode worker is not needed for recovery).
				const restarted = n8n.processes[victim].restart();
				restarted.catch(() => undefined); // awaited below
				const succeeded = await successfulExecutions(id, members.length);
				await restarted;
				await deliveriesSettled('crash');
				const finished = await client.executions(id);
				const notified = notifiedMembers(finished);
				expect(notified).toEqual(members.map((member) => member.user_id).sort());
				expect(noticesSent('crash')).toEqual(notified);
				const lastStarted = Math.max(
					...succeeded.map((execution) => Date.parse(execution.startedAt)),
				);
				console.log(
					`n8n ${n8n.line}, ${victim} killed with ${running.length} executions running: ` +
						`10 events, ${notified.length} successful executions (${finished.length - notified.length} ` +
						`others, left by the kill), the last ${((lastStarted - killed) / 1000).toFixed(1)} s after the kill`,
				);
				await client.api('POST', `/workflows/${id}/deactivate`);
			},
			8 * 60_000,
		);
	});

	// Redis persisting to its append-only file, as n8n's queue needs (README, "Running in n8n queue mode").
	if (topology.queue)
		describe('Redis restarted during a burst (queue mode)', () => {
			it.each([
				['on receipt', 'onReceipt', 'redisOnReceipt'],
				['when the workflow has finished', 'whenFinished', 'redisWhenFinished'],
			])(
				'Acknowledge Deliveries %s: every event ends in exactly one successful execution',
				async (_, acknowledge, orgName) => {
					const { client: api, org } = orgs[orgName];
					const id = await memberRemovalTrigger(orgName, (workflow) => {
						// A 3 s pause: executions are running when Redis goes away.
						answeredWhenFinished(3)(workflow);
						workflow.nodes[0].parameters.acknowledge = acknowledge;
					});
					const members = await addTrainers(orgName, 20);
					// 20 removals, one every 250 ms; Redis restarted after the 10th: executions are running on
					// the workers, queued for them, and arriving while Redis is away.
					let restart: Promise<void> | undefined;
					let restartedAt = 0;
					let runningAtRestart = 0;
					for (const [index, member] of members.entries()) {
						if (index === 10) {
							runningAtRestart = (await client.runningExecutions(id)).length;
							restartedAt = Date.now();
							restart = n8n.redis!.restart();
						}
						const removed = api.delete(`/orgs/${org.id}/members/${member.user_id}`);
						expect((await removed).status).toBe(204);
						await new Promise((resolve) => setTimeout(resolve, 250));
					}
					await restart;
					expect(runningAtRestart).toBeGreaterThan(0);
					const succeeded = await successfulExecutions(id, members.length);
					const settled = await deliveriesSettled(orgName);
					const finished = await client.executions(id);
					const notified = notifiedMembers(finished);
					expect(notified).toEqual(members.map((member) => member.user_id).sort());
					expect(noticesSent(orgName)).toEqual(notified);
					const lastStarted = Math.max(
						...succeeded.map((execution) => Date.parse(execution.startedAt)),
					);
					const others = finished.filter((execution) => execution.status !== 'success');
					console.log(
						`n8n ${n8n.line}, acknowledging ${acknowledge}, Redis restarted in a burst of 20 events ` +
							`with ${runningAtRestart} executions running: ` +
							`${notified.length} successful executions, ${others.length} others` +
							`${others.length ? ` (${others.map((e) => e.status).join(', ')})` : ''}; the last started ` +
							`${((lastStarted - restartedAt) / 1000).toFixed(1)} s after the restart began; attempts per ` +
							`delivery ${Math.min(...settled.map((d) => d.attempts))}–${Math.max(...settled.map((d) => d.attempts))}`,
					);
					await client.api('POST', `/workflows/${id}/deactivate`);
				},
				8 * 60_000,
			);
		});

	describe('the API server killed in the middle of a bulk creation (Retry On Fail)', () => {
		it("every row's session exists exactly once after the API is started again", async () => {
			// An API server of its own (database, port), killed and started again on the same port.
			const databasePath = join(work, 'killed-api.sqlite');
			const { api_key: key } = bootstrapOrg(databasePath, 'E2E killed API', 'killed@e2e.test');
			const env = { DATABASE_PATH: databasePath, RATE_LIMIT_REQUESTS: '100000' };
			let server = await spawnServer(env, 'node', join(work, 'killed-api-1.log'));
			try {
				const api = new ApiClient(server.url, key);
				const { published } = await demoVersionsOf(api);
				const credentialId = await credential('Training Lab killed API', server.url, key);
				const path = randomUUID();
				const rows = Array.from({ length: 100 }, (_, index) => ({ title: `Row ${index + 1}` }));
				const start = webhookRows(path, rows);
				const bulk = example('bulk-session-creation', {
					YOUR_PUBLISHED_LAB_VERSION_ID: published,
					YOUR_CREDENTIAL_ID: credentialId,
				});
				// The example's Create session node (10 items a second), failing the run instead of the
				// item, and tried again by n8n: 5 tries, 5 s apart.
				const create = bulk.nodes.find((node: { name: string }) => node.name === 'Create session');
				delete create.onError;
				Object.assign(create, { retryOnFail: true, maxTries: 5, waitBetweenTries: 5000 });
				create.parameters.additionalFields = {};
				create.parameters.capacity = 10;
				const { id } = await client.api<{ id: string }>('POST', '/workflows', {
					name: 'Bulk creation while the API is killed',
					nodes: [...start.nodes, create],
					connections: {
						...start.connections,
						Rows: { main: [[{ node: 'Create session', type: 'main', index: 0 }]] },
					},
					settings: { executionOrder: 'v1' },
				});
				await client.activate(id);
				const sessionCount = () => {
					const db = new Database(databasePath, { readonly: true, fileMustExist: true });
					try {
						return (db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n;
					} finally {
						db.close();
					}
				};
				await eventually(
					async () => (await fetch(`${n8n.webhookBase}/webhook/${path}`, { method: 'POST' })).ok,
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
					join(work, 'killed-api-2.log'),
				);

				const [execution] = await eventually(
					async () => {
						const executions = await client.executions(id);
						return executions.length > 0 && executions[0].status !== 'running' && executions;
					},
					'the run to end',
					patiently(120_000, n8n.log),
				);
				expect(execution.status).toBe('success');
				expect(await client.executions(id)).toHaveLength(1);
				const titles = (await api.getAll('/sessions?limit=200')).items.map(
					(session: { title: string }) => session.title,
				);
				expect(titles.sort()).toEqual(rows.map((row) => row.title).sort());
				console.log(
					`n8n ${n8n.line} (${topology.executors.join(', ')}): API killed after ${createdBeforeKill} ` +
						`of 100 creates, ${cut} requests cut while it was down (a row given up after 3 tries); the run ended "${execution.status}" ` +
						`${((Date.parse(execution.stoppedAt!) - killed) / 1000).toFixed(1)} s after the kill, ` +
						`with ${titles.length} sessions, each once`,
				);
				await client.api('POST', `/workflows/${id}/deactivate`);
			} finally {
				await server.stop();
			}
		}, 300_000);
	});

	describe('On Error: Continue (using error output)', () => {
		it("sends the failed item to the error output with the API's message and code, the others to the success output", async () => {
			const { client: api } = orgs.errors;
			const { published, draft } = await demoVersionsOf(api);
			const credentialId = await credential(
				'Training Lab errors',
				api.baseUrl,
				orgs.errors.api_key,
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
					workflowNode('Create session', 'n8n-nodes-traininglab.trainingLab', 400, {
						typeVersion: 1,
						onError: 'continueErrorOutput',
						parameters: {
							resource: 'session',
							operation: 'create',
							title: '={{ $json.title }}',
							labVersion: { __rl: true, mode: 'id', value: '={{ $json.version }}' },
							capacity: 10,
						},
						credentials: { trainingLabApi: { id: credentialId, name: 'Training Lab errors' } },
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
			const { id } = await client.api<{ id: string }>('POST', '/workflows', workflow);
			await client.api('POST', `/workflows/${id}/activate`);
			const url = `${n8n.webhookBase}/webhook/${path}`;
			await eventually(
				async () => (await fetch(url, { method: 'POST' })).ok,
				'the webhook to be registered',
				patiently(60_000, n8n.log),
			);
			const execution = await firstExecution(id, 60_000);
			const created = nodeOutput(execution, 'Created');
			const failed = nodeOutput(execution, 'Failed');
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
			await client.api('POST', `/workflows/${id}/deactivate`);
		}, 120_000);
	});

	describe("the credential test through n8n's own endpoint", () => {
		// n8n tests a stored credential (by id) with the data of the form.
		async function test(
			apiKey: string,
			baseUrl = api.url,
		): Promise<{ status: string; message: string }> {
			const id = await credential(`Training Lab ${Math.random()}`, baseUrl, apiKey);
			const data = { baseUrl, apiKey };
			return (await client.rest('POST', '/rest/credentials/test', {
				credentials: { id, name: 'Training Lab', type: 'trainingLabApi', data },
			})) as { status: string; message: string };
		}
		const REFUSED =
			'The API key was refused: it is wrong, revoked, or its member was removed. Create a new key (Training Lab node → API Key → Create) and paste it here.';

		it('passes for a good key, also with a trailing slash; a revoked or unknown key gets a message saying what to do', async () => {
			const { id, key } = (
				await orgs.people.client.post(`/orgs/${orgs.people.org.id}/api-keys`, {
					name: 'for n8n',
					role: 'trainer',
				})
			).body;
			expect(await test(key)).toEqual({ status: 'OK', message: 'Connection successful!' });
			expect(await test(key, `${api.url}/`)).toEqual({
				status: 'OK',
				message: 'Connection successful!',
			});
			await orgs.people.client.delete(`/orgs/${orgs.people.org.id}/api-keys/${id}`);
			expect(await test(key)).toEqual({ status: 'Error', message: REFUSED });
			expect(await test('tlk_not-a-key')).toEqual({ status: 'Error', message: REFUSED });
		});

		it('tells a wrong address from a wrong key, and another service from the Training Lab API', async () => {
			// n8n words a connection failure itself: 2.x gives its code, 1.x a sentence.
			expect(await test(orgs.people.api_key, 'http://127.0.0.1:9/api/v1')).toEqual({
				status: 'Error',
				message:
					n8n.line === '2.x'
						? 'ECONNREFUSED'
						: 'The service refused the connection - perhaps it is offline',
			});
			expect(await test(orgs.people.api_key, api.url.replace('/api/v1', ''))).toEqual({
				status: 'Error',
				message: expect.stringMatching(
					/^Nothing answers as the Training Lab API at this Base URL \(GET \/me: 404\)\. Check host and path/,
				),
			});
			// Another service on /api/v1: answers /me with its own JSON, everything else with 404.
			const other = createServer((request, response) => {
				response.setHeader('content-type', 'application/json');
				if (request.url === '/api/v1/me') response.end(JSON.stringify({ login: 'someone' }));
				else response.writeHead(404).end('{}');
			});
			await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
			try {
				const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
				expect(await test(orgs.people.api_key, `${otherUrl}/api/v1`)).toEqual({
					status: 'Error',
					message:
						'This server answered GET /me, but not as the Training Lab API does (no organisation in the answer). Check the Base URL.',
				});
			} finally {
				await new Promise<void>((resolve) => other.close(() => resolve()));
			}
		});
	});

	describe('the Activity Trigger (polling) in an active workflow', () => {
		it(
			'starts executions whose items are every member.removed event of the test, exactly once',
			async () => {
				const { client: api, org } = orgs.polling;
				// Activated when the suite started (pollingWorkflowId). The first poll records where the
				// log stands; n8n keeps that in the workflow's static data.
				const workflow = { id: pollingWorkflowId };
				await eventually(
					async () => {
						const stored = await client.api<{
							staticData?: Record<string, { lastEventId?: string }>;
						}>('GET', `/workflows/${workflow.id}`);
						return stored.staticData?.['node:Activity']?.lastEventId !== undefined;
					},
					'the first poll to record its position',
					patiently(150_000, n8n.log),
				);

				const removeMembers = async (count: number) => {
					const ids: string[] = [];
					for (let i = 0; i < count; i++) {
						const member = (
							await api.post(`/orgs/${org.id}/members`, {
								email: `leaver-${randomUUID()}@e2e.test`,
								name: 'Leaver',
								role: 'trainer',
							})
						).body;
						expect((await api.delete(`/orgs/${org.id}/members/${member.user_id}`)).status).toBe(
							204,
						);
						ids.push(member.user_id);
					}
					await api.post('/labs', { name: `Not watched ${randomUUID()}`, tier: 'vm' });
					return ids;
				};
				const removedEvents = async () =>
					(
						(await api.get(`/orgs/${org.id}/events?limit=200`)).body as Array<{
							id: string;
							type: string;
						}>
					)
						.filter((event) => event.type === 'member.removed')
						.reverse();
				/** Every item the workflow's executions emitted, oldest execution first (a poll may split a batch). */
				const emitted = async () =>
					(await client.executions(workflow.id))
						.filter((execution) => execution.status === 'success')
						.reverse()
						.flatMap((execution) => nodeOutput(execution, 'Activity'));
				const allEmitted = (userIds: string[]) =>
					eventually(
						async () => {
							const items = await emitted();
							const seen = new Set(items.map((item) => item.data.user_id));
							return userIds.every((id) => seen.has(id)) && items;
						},
						'executions carrying every removal',
						patiently(150_000, n8n.log),
					);

				const executors = async () =>
					new Set(
						(await client.executions(workflow.id)).map((execution) => executedBy(execution.id)),
					);

				const first = await removeMembers(3);
				const afterFirst = await allEmitted(first);
				expect(afterFirst.map((item) => item.data.user_id)).toEqual(first);
				expect(afterFirst.map((item) => item.id)).toEqual(
					(await removedEvents()).map((event) => event.id),
				);

				// One more removal, a poll later: it arrives, and nothing before it is emitted again.
				const sentinel = await removeMembers(1);
				const afterSentinel = await allEmitted(sentinel);
				expect(afterSentinel.map((item) => item.data.user_id)).toEqual([...first, ...sentinel]);
				expect(afterSentinel.map((item) => item.id)).toEqual(
					(await removedEvents()).map((event) => event.id),
				);
				for (const executor of await executors()) expect(topology.executors).toContain(executor);
				await client.api('POST', `/workflows/${workflow.id}/deactivate`);
			},
			8 * 60_000,
		);
	});

	describe('a trainer key at activation', () => {
		let trainerCredential: string;
		beforeAll(async () => {
			const { client: api, org } = orgs.polling;
			const trainerKey = (
				await api.post(`/orgs/${org.id}/api-keys`, {
					name: 'trainer at activation',
					role: 'trainer',
				})
			).body.key;
			trainerCredential = await credential('Training Lab trainer key', api.baseUrl, trainerKey);
		});

		it('fails the Activity Trigger with the message naming the admin key it needs', async () => {
			const workflow = await client.api<{ id: string }>(
				'POST',
				'/workflows',
				activityWorkflow('Poll with a trainer key', trainerCredential, ['member.removed']),
			);
			expect(await client.activationFailure(workflow.id)).toContain(
				"The activity log needs an admin API key; this credential's key acts as trainer",
			);
			expect(await client.executions(workflow.id)).toEqual([]);
			await client.api('POST', `/workflows/${workflow.id}/deactivate`);
		});

		it('fails the Training Lab Trigger with that message and leaves no endpoint behind', async () => {
			const workflow = example('react-to-member-removal', {
				YOUR_CREDENTIAL_ID: trainerCredential,
			});
			workflow.nodes[0].webhookId = randomUUID(); // its own path, next to the active example
			const { id } = await client.api<{ id: string }>('POST', '/workflows', workflow);
			expect(await client.activationFailure(id)).toContain(
				"Registering this trigger's webhook endpoint needs an admin API key; this credential's key acts as trainer",
			);
			const webhookUrl = `${n8n.webhookBase}/webhook/${workflow.nodes[0].webhookId}/webhook`;
			expect((await endpointsOf('polling')).map((endpoint) => endpoint.url)).not.toContain(
				webhookUrl,
			);
			await client.api('POST', `/workflows/${id}/deactivate`);
		});
	});

	describe('the node types n8n loaded from the package', () => {
		it('offers the action node, both triggers, and the action node as an AI tool (usableAsTool)', async () => {
			const types =
				await client.editorJson<
					Array<{ name: string; displayName: string; properties: Array<{ name: string }> }>
				>('/types/nodes.json');
			const ours = types.filter((type) => type.name.startsWith('n8n-nodes-traininglab.'));
			expect(ours.map((type) => type.name).sort()).toEqual(
				[
					'n8n-nodes-traininglab.trainingLab',
					'n8n-nodes-traininglab.trainingLabActivityTrigger',
					'n8n-nodes-traininglab.trainingLabTool',
					'n8n-nodes-traininglab.trainingLabTrigger',
				].sort(),
			);
			const tool = ours.find((type) => type.name.endsWith('trainingLabTool'))!;
			const node = ours.find((type) => type.name.endsWith('.trainingLab'))!;
			// The tool variant is the action node with every resource and operation.
			for (const property of ['resource', 'operation'])
				expect(tool.properties.map((p) => p.name)).toContain(property);
			expect(tool.properties.filter((p) => p.name === 'operation')).toHaveLength(
				node.properties.filter((p) => p.name === 'operation').length,
			);
		});
	});

	aiToolScenarios({
		n8n: () => n8n,
		client: () => client,
		proxy: () => proxy,
		org: (name) => orgs[name],
		credential,
		importExample,
		executions: (workflowId, done) =>
			eventually(
				async () => {
					const executions = await client.executions(workflowId);
					return done(executions) && executions;
				},
				'the executions',
				patiently(120_000, n8n.log),
			),
		executors: topology.executors,
		executedBy,
	});

	oncePerEventScenarios({
		topology,
		n8n: () => n8n,
		client: () => client,
		notices: () => notices,
		org: (name) => orgs[name],
		credential,
		async activateTrigger(workflow, org, webhookUrl) {
			const { id } = await client.api<{ id: string }>('POST', '/workflows', workflow);
			await activate(id, org, webhookUrl);
			return id;
		},
		addTrainers,
		deliveriesSettled,
	});
}
