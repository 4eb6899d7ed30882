import { createOrg, type TestOrg } from '../support/fixtures';
import { startTestServer, type TestServer } from '../support/test-server';
import { byId, json } from '../support/node-runner';
import { loopAgain, retryExecution, runTrainingLab } from '../support/n8n';
import { LossyProxy } from '../support/lossy-proxy';

// One Idempotency-Key per intent: the same where n8n runs the same create again, another for every
// other create, however alike its item and fields.
let server: TestServer;
let proxy: LossyProxy;
let org: TestOrg;
beforeAll(async () => {
	server = await startTestServer({ RATE_LIMIT_REQUESTS: '100000' });
	proxy = await LossyProxy.start(server.url);
	org = await createOrg(server);
});
afterAll(async () => {
	await proxy.stop();
	await server.stop();
});
beforeEach(() => {
	proxy.exchanges.length = 0;
	proxy.losses = 0;
});

const credentials = () => ({ baseUrl: proxy.url, apiKey: org.admin.key! });
const createSession = (title: string, extra: Record<string, unknown> = {}) => ({
	resource: 'session',
	operation: 'create',
	title,
	labVersion: byId(org.publishedVersionId),
	capacity: 5,
	...extra,
});
const sessionsTitled = (title: string) =>
	(
		server.db.prepare('SELECT count(*) AS n FROM sessions WHERE title = ?').get(title) as {
			n: number;
		}
	).n;
const posts = () => proxy.exchanges.filter((exchange) => exchange.method === 'POST');

it('a second run of the node in the same execution (a loop) creates again, under another key', async () => {
	const first = await runTrainingLab(createSession('Looped'), { credentials: credentials() });
	const second = await runTrainingLab(createSession('Looped'), {
		credentials: credentials(),
		executionId: first.executionId,
		startFrom: loopAgain(first),
	});
	expect(second.error).toBeUndefined();
	expect(second.run.data.resultData.runData['Training Lab']).toHaveLength(2);
	expect(json(second)[0].id).not.toBe(json(first)[0].id);
	const [firstKey, secondKey] = posts().map((exchange) => exchange.idempotencyKey);
	expect(secondKey).not.toBe(firstKey);
	expect(sessionsTitled('Looped')).toBe(2);
});

it('another execution with the same item and fields creates again', async () => {
	await runTrainingLab(createSession('Scheduled twice'), { credentials: credentials() });
	await runTrainingLab(createSession('Scheduled twice'), { credentials: credentials() });
	expect(new Set(posts().map((exchange) => exchange.idempotencyKey)).size).toBe(2);
	expect(sessionsTitled('Scheduled twice')).toBe(2);
});

it("n8n's retry of a failed execution creates nothing twice: it carries the first execution's keys", async () => {
	// The API's answers are lost from the third create on, more often than the transport repeats a
	// request: the third item fails the execution after the server created its session.
	let postsSeen = 0;
	proxy.lose = (req) => req.method === 'POST' && ++postsSeen >= 3;
	proxy.losses = 3;
	const input = ['R1', 'R2', 'R3', 'R4'].map((title) => ({ title }));
	const failed = await runTrainingLab(createSession('={{ $json.title }}'), {
		credentials: credentials(),
		input,
	});
	expect(failed.error).toMatchObject({ name: 'NodeApiError' });
	expect(['R1', 'R2', 'R3', 'R4'].map(sessionsTitled)).toEqual([1, 1, 1, 0]);
	expect(failed.run.data.resultData.metadata).toEqual({ traininglab_run: failed.executionId });
	const firstKeys = posts().map((exchange) => exchange.idempotencyKey);

	proxy.exchanges.length = 0;
	const retried = await runTrainingLab(createSession('={{ $json.title }}'), {
		credentials: credentials(),
		input,
		startFrom: retryExecution(failed),
	});
	expect(retried.error).toBeUndefined();
	expect(retried.executionId).not.toBe(failed.executionId);
	expect(json(retried).map((session) => session.title)).toEqual(['R1', 'R2', 'R3', 'R4']);
	expect(posts().map((exchange) => exchange.replayed)).toEqual([true, true, true, false]);
	expect(
		posts()
			.map((exchange) => exchange.idempotencyKey)
			.slice(0, 3),
	).toEqual([firstKeys[0], firstKeys[1], firstKeys[2]]);
	expect(['R1', 'R2', 'R3', 'R4'].map(sessionsTitled)).toEqual([1, 1, 1, 1]);
});

it('a create refused under a key goes through under the same key once its cause is put right', async () => {
	const version = (await org.admin.post(`/labs/${org.labId}/versions`)).body;
	const parameters = createSession('After publishing', {
		labVersion: byId(version.id),
		additionalFields: { idempotencyKey: 'row-7' },
	});
	const refused = await runTrainingLab(parameters, { credentials: credentials() });
	expect(refused.error).toMatchObject({
		httpCode: '409',
		description: expect.stringMatching(/lab_version_not_published/),
	});

	await org.admin.post(`/labs/${org.labId}/versions/${version.id}/publish`);
	const created = await runTrainingLab(parameters, { credentials: credentials() });
	expect(created.error).toBeUndefined();
	expect(json(created)[0]).toMatchObject({ title: 'After publishing', lab_version_id: version.id });

	// From now on the key's chain ends in the created session: a repeat replays it.
	const repeated = await runTrainingLab(parameters, { credentials: credentials() });
	expect(json(repeated)).toEqual(json(created));
	expect(sessionsTitled('After publishing')).toBe(1);
});

it('Create Lab Version takes an Idempotency Key of its own', async () => {
	const parameters = {
		resource: 'labVersion',
		operation: 'create',
		lab: byId(org.labId),
		additionalFields: { idempotencyKey: 'next-version-of-the-week' },
	};
	const first = await runTrainingLab(parameters, { credentials: credentials() });
	const second = await runTrainingLab(parameters, { credentials: credentials() });
	expect(json(second)).toEqual(json(first));
	expect(posts().map((exchange) => exchange.idempotencyKey)).toEqual([
		'next-version-of-the-week',
		'next-version-of-the-week',
	]);
});
