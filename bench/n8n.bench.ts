// `npm run bench:n8n`: the package inside the real n8n the end-to-end suite installs, against what a
// user would build without it — n8n's HTTP Request node with a Bearer credential, and the Webhook
// node with Header Auth — in one n8n and one API server, contenders alternating, every round
// checked against the API. Figures go to BENCH_RESULT_FILE (bench/n8n.mts prints them).
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { ApiClient, demoVersionsOf } from '../tooling/api/client';
import { eventually } from '../tooling/eventually';
import { bootstrapOrg, spawnServer, type ServerProcess } from '../tooling/api/server-process';
import { ensureN8n, installTarball, packPackage } from '../tooling/n8n/install';
import { N8nClient } from '../tooling/n8n/client';
import { patiently, startN8n, type N8n } from '../tooling/n8n/processes';
import { tempRoot } from '../tooling/processes';
import { webhookRows, workflowNode } from '../tooling/n8n/workflows';
import { NODE_TYPE } from '../tooling/root';

// BENCH_SMOKE=1 (`npm run bench:n8n -- --smoke`): every workload once, at sizes that take seconds.
const SMOKE = process.env.BENCH_SMOKE === '1';
const ROUNDS = SMOKE ? 1 : Number(process.env.BENCH_N8N_ROUNDS ?? 3);
const READS = SMOKE ? 20 : 500;
const CREATES = SMOKE ? 10 : 300;
// More than one page of 200, so that both contenders page.
const LISTED = SMOKE ? 250 : 1000;
const DELIVERIES = SMOKE ? 10 : 300;

type Contender = 'ours' | 'theirs';
interface Measure {
	/** Items (or executions) per second of one run. */
	rate: number;
}

jest.setTimeout(30 * 60_000);

let work: string;
let api: ServerProcess;
let n8n: N8n;
let client: N8nClient;
let lab: ApiClient;
let orgId: string;
let versionId: string;
const credentials: Record<Contender, string> = { ours: '', theirs: '' };

beforeAll(async () => {
	work = tempRoot();
	const install = ensureN8n();
	const tarball = packPackage(work);
	const databasePath = join(work, 'api.sqlite');
	const boot = bootstrapOrg(databasePath, 'Bench in n8n', 'bench@n8n.test');
	orgId = boot.org.id;
	api = await spawnServer(
		{
			DATABASE_PATH: databasePath,
			WEBHOOK_ALLOW_INSECURE_URLS: 'true',
			RATE_LIMIT_REQUESTS: '100000000',
		},
		'node',
		join(work, 'api-server.log'),
	);
	lab = new ApiClient(api.url, boot.api_key);
	versionId = (await demoVersionsOf(lab)).published;
	const userFolder = join(work, 'n8n-user');
	installTarball(userFolder, tarball);
	n8n = await startN8n(install, userFolder);
	client = new N8nClient(n8n);
	await client.login();
	credentials.ours = (
		await client.api('POST', '/credentials', {
			name: 'Training Lab',
			type: 'trainingLabApi',
			data: { baseUrl: api.url, apiKey: boot.api_key },
		})
	).id;
	credentials.theirs = (
		await client.api('POST', '/credentials', {
			name: 'Bearer',
			type: 'httpBearerAuth',
			data: { token: boot.api_key },
		})
	).id;
});

afterAll(async () => {
	await n8n?.stop();
	await api?.stop();
	if (work) rmSync(work, { recursive: true, force: true });
});

/** The node under test for each contender, named "Node": ours, or HTTP Request doing the same. */
const contenders = {
	get: {
		ours: () =>
			trainingLab({ resource: 'session', operation: 'get', session: byId('={{ $json.id }}') }),
		theirs: () => httpRequest({ url: `=${api.url}/sessions/{{ $json.id }}` }),
	},
	create: {
		ours: () =>
			trainingLab({
				resource: 'session',
				operation: 'create',
				title: '={{ $json.title }}',
				labVersion: byId(versionId),
				capacity: 10,
			}),
		theirs: () =>
			httpRequest({
				method: 'POST',
				url: `${api.url}/sessions`,
				sendBody: true,
				specifyBody: 'json',
				jsonBody: `={{ JSON.stringify({ title: $json.title, lab_version_id: '${versionId}', capacity: 10 }) }}`,
			}),
	},
	returnAll: {
		ours: () => trainingLab({ resource: 'session', operation: 'getAll', returnAll: true }),
		theirs: () =>
			httpRequest({
				url: `${api.url}/sessions`,
				sendQuery: true,
				queryParameters: { parameters: [{ name: 'limit', value: '200' }] },
				options: {
					pagination: {
						pagination: {
							paginationMode: 'responseContainsNextURL',
							nextURL: '={{ $response.headers.link.match(/<([^>]+)>/)[1] }}',
							paginationCompleteWhen: 'other',
							completeExpression: '={{ !$response.headers.link }}',
						},
					},
				},
			}),
	},
};

const byId = (value: string) => ({ __rl: true, mode: 'id', value });

function trainingLab(parameters: object) {
	return workflowNode('Node', NODE_TYPE.trainingLab, 400, {
		typeVersion: 1,
		parameters,
		credentials: { trainingLabApi: { id: credentials.ours, name: 'Training Lab' } },
	});
}

function httpRequest(parameters: object) {
	return workflowNode('Node', 'n8n-nodes-base.httpRequest', 400, {
		typeVersion: 4.2,
		parameters: {
			authentication: 'genericCredentialType',
			genericAuthType: 'httpBearerAuth',
			options: {},
			...parameters,
		},
		credentials: { httpBearerAuth: { id: credentials.theirs, name: 'Bearer' } },
	});
}

/** A workflow of Webhook → Rows → `node`, active; returns how to run it once. */
async function itemsWorkflow(name: string, node: object, rows: () => object[]) {
	const path = randomUUID();
	// The rows come with the request, so that every round sends its own.
	const start = webhookRows(path, 'from the request');
	const { id } = await client.api<{ id: string }>('POST', '/workflows', {
		name,
		nodes: [...start.nodes, node],
		connections: {
			...start.connections,
			Rows: { main: [[{ node: 'Node', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	});
	await client.api('POST', `/workflows/${id}/activate`);
	const url = `${n8n.webhookBase}/webhook/${path}`;
	// Registered once a run with no rows goes through (it leaves an execution of no items).
	await eventually(
		async () =>
			(
				await fetch(url, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: '{"rows":[]}',
				})
			).ok,
		'the webhook',
		patiently(60_000, n8n.log),
	);
	return async (): Promise<{ executionTimeMs: number; output: Array<Record<string, any>> }> => {
		const before = new Set((await client.executions(id)).map((execution) => execution.id));
		const body = JSON.stringify({ rows: rows() });
		const answer = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body,
		});
		if (!answer.ok) throw new Error(`${name}: ${answer.status} ${await answer.text()}`);
		const execution = await eventually(
			async () => {
				const found = (await client.executions(id)).find((e) => !before.has(e.id));
				return found && !['new', 'running', 'waiting'].includes(found.status) && found;
			},
			`${name}'s execution`,
			patiently(10 * 60_000, n8n.log),
		);
		if (execution.status !== 'success') throw new Error(`${name}: execution ${execution.status}`);
		const run = execution.data.resultData.runData.Node[0];
		return {
			executionTimeMs: run.executionTime,
			output: run.data.main[0].map((item: { json: unknown }) => item.json),
		};
	};
}

const results: Record<string, Record<Contender, Measure[]>> = {};
function record(workload: string, contender: Contender, rate: number) {
	results[workload] ??= { ours: [], theirs: [] };
	results[workload][contender].push({ rate });
	console.log(`${workload} ${contender}: ${rate.toFixed(1)}/s`);
}

/** Contenders alternate, and which goes first alternates with the round. */
const order = (round: number): Contender[] =>
	round % 2 === 0 ? ['ours', 'theirs'] : ['theirs', 'ours'];

it('per-item reads, creates and a multi-page Return All: ours against the HTTP Request node', async () => {
	const ids: string[] = [];
	for (let i = 0; i < LISTED; i++)
		ids.push(
			(
				await lab.post('/sessions', {
					title: `Listed ${i}`,
					lab_version_id: versionId,
					capacity: 5,
				})
			).body.id,
		);
	const reads = ids.slice(0, READS).map((id) => ({ id }));
	let created = 0;
	const run = {
		get: {
			ours: await itemsWorkflow('get ours', contenders.get.ours(), () => reads),
			theirs: await itemsWorkflow('get theirs', contenders.get.theirs(), () => reads),
		},
		create: {
			ours: await itemsWorkflow('create ours', contenders.create.ours(), () =>
				Array.from({ length: CREATES }, () => ({ title: `Created ${++created}` })),
			),
			theirs: await itemsWorkflow('create theirs', contenders.create.theirs(), () =>
				Array.from({ length: CREATES }, () => ({ title: `Created ${++created}` })),
			),
		},
		returnAll: {
			ours: await itemsWorkflow('return all ours', contenders.returnAll.ours(), () => [{}]),
			theirs: await itemsWorkflow('return all theirs', contenders.returnAll.theirs(), () => [{}]),
		},
	};
	for (let round = 0; round < ROUNDS; round++) {
		for (const contender of order(round)) {
			const { executionTimeMs, output } = await run.get[contender]();
			expect(output.map((session) => session.id)).toEqual(reads.map((read) => read.id));
			record('get', contender, (READS / executionTimeMs) * 1000);
		}
		for (const contender of order(round)) {
			const total = async () => (await lab.getAll('/sessions?limit=200')).items.length;
			const before = await total();
			const { executionTimeMs, output } = await run.create[contender]();
			expect(output).toHaveLength(CREATES);
			expect(new Set(output.map((session) => session.id)).size).toBe(CREATES);
			expect(await total()).toBe(before + CREATES);
			record('create', contender, (CREATES / executionTimeMs) * 1000);
		}
		for (const contender of order(round)) {
			const expected = (await lab.getAll('/sessions?limit=200')).items.map((s) => s.id).sort();
			const { executionTimeMs, output } = await run.returnAll[contender]();
			expect(output.map((session) => session.id).sort()).toEqual(expected);
			record('returnAll', contender, (output.length / executionTimeMs) * 1000);
		}
	}
});

it('signed deliveries: the Training Lab Trigger against the Webhook node with Header Auth', async () => {
	const headerSecret = randomUUID();
	const headerCredential = (
		await client.api('POST', '/credentials', {
			name: 'Header',
			type: 'httpHeaderAuth',
			data: { name: 'x-delivery-token', value: headerSecret },
		})
	).id;
	// Ours: the trigger, whose endpoint (and signing secret) the API holds; theirs: a Webhook node.
	const triggerId = randomUUID();
	const ours = await client.api<{ id: string }>('POST', '/workflows', {
		name: 'deliveries ours',
		nodes: [
			{
				...workflowNode('Trigger', NODE_TYPE.trainingLabTrigger, 0, {
					typeVersion: 1,
					parameters: { events: ['session.created'] },
					credentials: { trainingLabApi: { id: credentials.ours, name: 'Training Lab' } },
				}),
				webhookId: triggerId,
			},
		],
		connections: {},
		settings: { executionOrder: 'v1' },
	});
	const theirsPath = randomUUID();
	const theirs = await client.api<{ id: string }>('POST', '/workflows', {
		name: 'deliveries theirs',
		nodes: [
			workflowNode('Webhook', 'n8n-nodes-base.webhook', 0, {
				typeVersion: 2,
				webhookId: theirsPath,
				parameters: {
					path: theirsPath,
					httpMethod: 'POST',
					authentication: 'headerAuth',
					responseMode: 'onReceived',
				},
				credentials: { httpHeaderAuth: { id: headerCredential, name: 'Header' } },
			}),
		],
		connections: {},
		settings: { executionOrder: 'v1' },
	});
	for (const { id } of [ours, theirs]) await client.api('POST', `/workflows/${id}/activate`);
	const oursUrl = `${n8n.webhookBase}/webhook/${triggerId}/webhook`;
	const endpoint = await eventually(
		async () =>
			(await lab.get(`/orgs/${orgId}/webhooks`)).body.find(
				(candidate: { url: string }) => candidate.url === oursUrl,
			),
		'the trigger to register its endpoint',
		patiently(60_000, n8n.log),
	);
	// Deliveries are signed as the API signs them, with the secret the trigger got at registration
	// and keeps in the workflow's static data, which n8n stores once the activation has ended (after
	// the endpoint is registered).
	const secret = await eventually(
		async () => {
			const workflow = (await client.rest('GET', `/rest/workflows/${ours.id}`)) as {
				staticData: { 'node:Trigger'?: { webhookSecret?: string } } | null;
			};
			return workflow.staticData?.['node:Trigger']?.webhookSecret;
		},
		"the trigger's secret in the workflow's static data",
		patiently(60_000, n8n.log),
	);
	const signer = new Webhook(secret);
	const theirsUrl = `${n8n.webhookBase}/webhook/${theirsPath}`;
	// Registered once a request without the header is refused rather than unknown.
	await eventually(
		async () => (await fetch(theirsUrl, { method: 'POST' })).status === 403,
		'the webhook',
		patiently(60_000, n8n.log),
	);

	/**
	 * Posts DELIVERIES events, 10 at a time, as the API's dispatcher would; returns executions per
	 * second from the first execution's start to the last one's end.
	 */
	async function deliver(contender: Contender, round: number): Promise<number> {
		const workflowId = contender === 'ours' ? ours.id : theirs.id;
		const before = new Set((await executionsOf(workflowId)).map((e) => e.id));
		const events = Array.from({ length: DELIVERIES }, (_, index) => ({
			id: randomUUID(),
			type: 'session.created',
			occurred_at: new Date().toISOString(),
			org_id: orgId,
			actor: 'bench@n8n.test',
			data: { session_id: randomUUID(), title: `Delivery ${round}-${index}` },
		}));
		let next = 0;
		const send = async () => {
			while (next < events.length) {
				const event = events[next++];
				const body = JSON.stringify(event);
				const headers: Record<string, string> =
					contender === 'ours'
						? {
								'webhook-id': event.id,
								'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
								'webhook-signature': signer.sign(event.id, new Date(), body),
							}
						: { 'x-delivery-token': headerSecret };
				const answer = await fetch(contender === 'ours' ? oursUrl : theirsUrl, {
					method: 'POST',
					headers: { 'content-type': 'application/json', ...headers },
					body,
				});
				if (!answer.ok) throw new Error(`${contender} delivery: ${answer.status}`);
			}
		};
		await Promise.all(Array.from({ length: 10 }, send));
		// n8n's own record of when each execution started and stopped; looked at once a second, so
		// that looking does not slow n8n down.
		const executions = await eventually(
			async () => {
				const all = (await executionsOf(workflowId)).filter((e) => !before.has(e.id));
				return all.length === DELIVERIES && all.every((e) => e.stoppedAt) && all;
			},
			`${contender}'s ${DELIVERIES} executions`,
			{ ...patiently(10 * 60_000, n8n.log), intervalMs: 1000 },
		);
		expect(executions.every((execution) => execution.status === 'success')).toBe(true);
		const startedAt = Math.min(...executions.map((e) => Date.parse(e.startedAt)));
		const stoppedAt = Math.max(...executions.map((e) => Date.parse(e.stoppedAt!)));
		return (DELIVERIES / (stoppedAt - startedAt)) * 1000;
	}

	for (let round = 0; round < ROUNDS; round++)
		for (const contender of order(round))
			record('deliveries', contender, await deliver(contender, round));
	expect(endpoint).toMatchObject({ event_types: ['session.created'] });
});

interface ExecutionSummary {
	id: string;
	status: string;
	startedAt: string;
	stoppedAt: string | null;
}

/** Every execution of a workflow, without data (the public API's pages followed). */
async function executionsOf(workflowId: string): Promise<ExecutionSummary[]> {
	const all: ExecutionSummary[] = [];
	let cursor: string | undefined;
	do {
		const page = await client.api<{ data: typeof all; nextCursor: string | null }>(
			'GET',
			`/executions?workflowId=${workflowId}&limit=250${cursor ? `&cursor=${cursor}` : ''}`,
		);
		all.push(...page.data);
		cursor = page.nextCursor ?? undefined;
	} while (cursor);
	return all;
}

afterAll(() => {
	const file = process.env.BENCH_RESULT_FILE;
	if (!file) return;
	const all = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
	writeFileSync(file, JSON.stringify({ ...all, n8n: results }));
});
