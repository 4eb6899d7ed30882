import { createHmac } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ApiClient } from '../server/support/api-client';
import { LossyProxy } from '../nodes/support/proxy';
import {
	bootstrapOrg,
	ensureN8n,
	example,
	installPackageInto,
	N8nClient,
	run,
	startApiServer,
	startN8n,
	tail,
	tempRoot,
	waitFor,
	type N8n,
	type Process,
} from './harness';

// One real n8n 2.x with the packed package installed, one API server (rate limit 60 requests per
// 10 s), both on free loopback ports; every scenario drives them over HTTP.
let work: string;
let api: Process & { url: string };
let n8n: N8n;
let client: N8nClient;
let proxy: LossyProxy;
const orgs: Record<string, { org: { id: string }; api_key: string; client: ApiClient }> = {};

beforeAll(async () => {
	work = tempRoot();
	const n8nDir = ensureN8n();
	const userFolder = join(work, 'n8n-user');
	installPackageInto(userFolder, work);
	const databasePath = join(work, 'api.sqlite');
	for (const [name, email] of [['bulk', 'bulk@e2e.test'], ['people', 'people@e2e.test'], ['closing', 'closing@e2e.test']]) {
		orgs[name] = { ...bootstrapOrg(databasePath, `E2E ${name}`, email), client: undefined as never };
	}
	api = await startApiServer(work, { DATABASE_PATH: databasePath, WEBHOOK_ALLOW_INSECURE_URLS: 'true', RATE_LIMIT_REQUESTS: '60', RATE_LIMIT_WINDOW_S: '10' });
	for (const entry of Object.values(orgs)) entry.client = new ApiClient(api.url, entry.api_key);
	proxy = await LossyProxy.start(api.url);
	n8n = await startN8n(n8nDir, userFolder);
	client = new N8nClient(n8n.url);
	await client.login();
}, 20 * 60_000);

afterAll(async () => {
	await n8n?.stop();
	await api?.stop();
	await proxy?.stop();
	if (work) rmSync(work, { recursive: true, force: true });
});

async function credential(name: string, baseUrl: string, apiKey: string): Promise<string> {
	const created = await client.api<{ id: string }>('POST', '/credentials', { name, type: 'trainingLabApi', data: { baseUrl, apiKey } });
	return created.id;
}

async function importExample(name: string, replacements: Record<string, string>): Promise<{ id: string; workflow: any }> {
	const workflow = example(name, replacements);
	const created = await client.api<{ id: string }>('POST', '/workflows', workflow);
	return { id: created.id, workflow };
}

function nodeOutput(execution: { data: any }, node: string): any[] {
	return (execution.data.resultData.runData[node]?.[0]?.data?.main?.[0] ?? []).map((item: { json: unknown }) => item.json);
}

/** Runs a workflow to its end with n8n's own CLI (`n8n execute`), next to the running instance. */
async function executeWithCli(workflowId: string): Promise<void> {
	const env = { ...n8n.env, N8N_RUNNERS_BROKER_PORT: String(20000 + Math.floor(Math.random() * 20000)) };
	try {
		run(process.execPath, [n8n.bin, 'execute', `--id=${workflowId}`], { cwd: work, env });
	} catch (error) {
		throw new Error(`${(error as Error).message}\n--- n8n log ---\n${tail(n8n.log)}`);
	}
}

async function endpointsOf(org: string): Promise<Array<{ id: string; url: string; event_types: string[] }>> {
	return (await orgs[org].client.get(`/orgs/${orgs[org].org.id}/webhooks`)).body;
}

async function webhookIsLive(url: string): Promise<boolean> {
	return (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status !== 404;
}

describe('bulk session creation on a schedule (examples/bulk-session-creation.json)', () => {
	let workflowId: string;
	let versionId: string;
	const sessions = async () => (await orgs.bulk.client.getAll('/sessions?limit=200')).items;

	beforeAll(async () => {
		const labs = (await orgs.bulk.client.get('/labs')).body;
		versionId = (await orgs.bulk.client.get(`/labs/${labs[0].id}/versions`)).body.find((v: { status: string }) => v.status === 'published').id;
		const credentialId = await credential('Training Lab bulk', proxy.url, orgs.bulk.api_key);
		({ id: workflowId } = await importExample('bulk-session-creation', { YOUR_PUBLISHED_LAB_VERSION_ID: versionId, YOUR_CREDENTIAL_ID: credentialId }));
		await new Promise((resolve) => setTimeout(resolve, 10_000)); // a fresh rate-limit window after the setup's own requests
	});

	it('creates every one of the 150 sessions exactly once, waiting out the 429s, with no failed item', async () => {
		proxy.exchanges.length = 0;
		await executeWithCli(workflowId);
		const created = await sessions();
		expect(created).toHaveLength(150);
		expect(new Set(created.map((s: { title: string }) => s.title)).size).toBe(150);
		const statuses = proxy.exchanges.map((e) => e.status);
		expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
		expect(proxy.exchanges.filter((e) => e.method === 'POST' && e.status === 201)).toHaveLength(150);
		const [execution] = await client.executions(workflowId);
		expect(execution.status).toBe('success');
		const output = nodeOutput(execution, 'Create session');
		expect(output).toHaveLength(150);
		expect(output.filter((item) => item.error)).toEqual([]);
	}, 10 * 60_000);

	it('run again with requests forced to retry (answers lost on the way back), still creates no duplicate', async () => {
		proxy.exchanges.length = 0;
		proxy.lose = (req) => req.method === 'POST';
		proxy.losses = 20;
		await new Promise((resolve) => setTimeout(resolve, 10_000));
		await executeWithCli(workflowId);
		proxy.losses = 0;
		expect(await sessions()).toHaveLength(150);
		const posts = proxy.exchanges.filter((e) => e.method === 'POST');
		expect(posts.length).toBeGreaterThan(150); // the lost answers were asked again
		expect(new Set(posts.map((e) => e.idempotencyKey)).size).toBe(150);
		const [execution] = await client.executions(workflowId);
		expect(nodeOutput(execution, 'Create session').filter((item) => item.error)).toEqual([]);
	}, 10 * 60_000);
});

describe('the trigger (examples/react-to-member-removal.json)', () => {
	let workflowId: string;
	let webhookUrl: string;

	beforeAll(async () => {
		const credentialId = await credential('Training Lab people', api.url, orgs.people.api_key);
		const { id, workflow } = await importExample('react-to-member-removal', { YOUR_CREDENTIAL_ID: credentialId });
		workflowId = id;
		webhookUrl = `${n8n.url}/webhook/${workflow.nodes[0].webhookId}/webhook`;
		await client.api('POST', `/workflows/${workflowId}/activate`);
		await waitFor('the trigger webhook', async () => webhookIsLive(webhookUrl), 30_000, n8n.log);
	}, 120_000);

	it('registered exactly one endpoint for its URL with its events', async () => {
		expect(await endpointsOf('people')).toEqual([expect.objectContaining({ url: webhookUrl, event_types: ['member.removed'] })]);
	});

	it('removing a member through the API starts exactly one execution carrying the member\'s id and e-mail', async () => {
		const members = (await orgs.people.client.get(`/orgs/${orgs.people.org.id}/members`)).body;
		const trainer = members.find((m: { role: string }) => m.role === 'trainer');
		expect((await orgs.people.client.delete(`/orgs/${orgs.people.org.id}/members/${trainer.user_id}`)).status).toBe(204);
		const [execution] = await waitFor('the execution', async () => {
			const executions = await client.executions(workflowId);
			return executions.length > 0 && executions[0].status === 'success' && executions;
		}, 30_000, n8n.log);
		expect(nodeOutput(execution, 'Offboarding notice')).toEqual([
			expect.objectContaining({ user_id: trainer.user_id, email: trainer.email, role: 'trainer', removed_by: 'people@e2e.test' }),
		]);
		await new Promise((resolve) => setTimeout(resolve, 2_000));
		expect(await client.executions(workflowId)).toHaveLength(1);
	});

	it('a forged delivery (no or a wrong signature) gets 401 and starts no execution', async () => {
		const before = (await client.executions(workflowId)).length;
		const body = JSON.stringify({ id: 'forged', type: 'member.removed', occurred_at: new Date().toISOString(), org_id: orgs.people.org.id, actor: 'mallory@x.test', data: {} });
		const unsigned = await fetch(webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
		expect(unsigned.status).toBe(401);
		const timestamp = Math.floor(Date.now() / 1000);
		const wrong = createHmac('sha256', Buffer.alloc(32, 7)).update(`forged.${timestamp}.${body}`).digest('base64');
		const forged = await fetch(webhookUrl, {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'webhook-id': 'forged', 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${wrong}` },
			body,
		});
		expect(forged.status).toBe(401);
		await new Promise((resolve) => setTimeout(resolve, 1_000));
		expect(await client.executions(workflowId)).toHaveLength(before);
	});

	it('deactivating deletes the endpoint; activating twice in a row leaves exactly one', async () => {
		await client.api('POST', `/workflows/${workflowId}/deactivate`);
		expect(await endpointsOf('people')).toEqual([]);
		await client.api('POST', `/workflows/${workflowId}/activate`);
		await client.api('POST', `/workflows/${workflowId}/activate`);
		await waitFor('the trigger webhook', async () => webhookIsLive(webhookUrl), 30_000, n8n.log);
		expect(await endpointsOf('people')).toEqual([expect.objectContaining({ url: webhookUrl })]);
	});
});

describe('the trigger on organization closure (examples/react-to-organization-closure.json)', () => {
	it('closing the organization starts exactly one execution carrying the closure', async () => {
		const credentialId = await credential('Training Lab closing', api.url, orgs.closing.api_key);
		const { id, workflow } = await importExample('react-to-organization-closure', { YOUR_CREDENTIAL_ID: credentialId });
		const webhookUrl = `${n8n.url}/webhook/${workflow.nodes[0].webhookId}/webhook`;
		await client.api('POST', `/workflows/${id}/activate`);
		await waitFor('the trigger webhook', async () => webhookIsLive(webhookUrl), 30_000, n8n.log);

		const closed = (await orgs.closing.client.post(`/orgs/${orgs.closing.org.id}/close`)).body;
		const [execution] = await waitFor('the execution', async () => {
			const executions = await client.executions(id);
			return executions.length > 0 && executions[0].status === 'success' && executions;
		}, 30_000, n8n.log);
		expect(nodeOutput(execution, 'Closure record')).toEqual([
			{ org_id: orgs.closing.org.id, name: 'E2E closing', slug: 'e2e-closing', closed_at: closed.closed_at, closed_by: 'closing@e2e.test' },
		]);
		await new Promise((resolve) => setTimeout(resolve, 2_000));
		expect(await client.executions(id)).toHaveLength(1);
	}, 120_000);
});

describe('the credential test through n8n\'s own endpoint', () => {
	const test = (apiKey: string) =>
		client.rest('POST', '/rest/credentials/test', { credentials: { id: 'e2e', name: 'Training Lab', type: 'trainingLabApi', data: { baseUrl: api.url, apiKey } } }) as Promise<{ status: string; message: string }>;

	it('passes for a good key and fails for a revoked one', async () => {
		const { id, key } = (await orgs.people.client.post(`/orgs/${orgs.people.org.id}/api-keys`, { name: 'for n8n', role: 'trainer' })).body;
		expect(await test(key)).toMatchObject({ status: 'OK' });
		await orgs.people.client.delete(`/orgs/${orgs.people.org.id}/api-keys/${id}`);
		expect(await test(key)).toMatchObject({ status: 'Error' });
	});
});
