import { randomUUID } from 'node:crypto';
import { serverWithOrg, type TestOrg } from '../support/fixtures';
import type { TestServer } from '../support/test-server';
import { toolSession, type CallableTool } from './support/tool';
import { TrainingLab } from '../../nodes/TrainingLab/TrainingLab.node';

// The node as a tool, called the way n8n calls it for the MCP Server Trigger (no execution, new run
// data per call) and for an AI Agent (one execution, every call with item index 0).
let server: TestServer;
let org: TestOrg;
beforeAll(async () => {
	({ server, org } = await serverWithOrg({ WEBHOOK_ALLOW_INSECURE_URLS: 'true' }, 'Tool Org'));
});
afterAll(() => server.stop());

const credentials = () => ({ baseUrl: server.url, apiKey: org.admin.key! });
const fromAi = (key: string, description: string, type = 'string') =>
	`={{ $fromAI('${key}', '${description}', '${type}') }}`;
const createSessionTool = {
	resource: 'session',
	operation: 'create',
	title: fromAi('title', 'The session title'),
	labVersion: { __rl: true, mode: 'id', value: fromAi('lab_version_id', 'A published version') },
	capacity: fromAi('capacity', 'How many participants', 'number'),
};
const sessionsTitled = (title: string) =>
	(
		server.db.prepare('SELECT id FROM sessions WHERE title = ?').all(title) as Array<{
			id: string;
		}>
	).map((row) => row.id);
const parsed = (answer: string) => JSON.parse(answer) as Array<Record<string, any>>;
/** The arguments a model is offered (n8n builds a zod object from the `$fromAI()` calls). */
const schemaOf = (tool: CallableTool) =>
	(tool.schema as { shape: Record<string, { description?: string }> }).shape;

describe('MCP Server Trigger calls (no execution id)', () => {
	it('two identical create calls create two sessions and each reports its own', async () => {
		const session = toolSession(createSessionTool, { credentials: credentials() });
		const args = { title: 'Via MCP', lab_version_id: org.publishedVersionId, capacity: 8 };
		const first = parsed(await (await session.tool()).invoke(args));
		const second = parsed(await (await session.tool()).invoke(args));
		expect(first[0].id).not.toBe(second[0].id);
		expect(sessionsTitled('Via MCP').sort()).toEqual([first[0].id, second[0].id].sort());
	});

	it('add member, remove member, add again: the member is there at the end', async () => {
		const email = `again-${randomUUID().slice(0, 6)}@tool.test`;
		const add = toolSession(
			{
				resource: 'member',
				operation: 'add',
				email: fromAi('email', 'E-mail'),
				name: fromAi('name', 'Name'),
			},
			{ credentials: credentials() },
		);
		const remove = toolSession(
			{
				resource: 'member',
				operation: 'remove',
				member: { __rl: true, mode: 'id', value: fromAi('user_id', 'The member') },
			},
			{ credentials: credentials() },
		);
		const args = { email, name: 'Again', role: 'trainer' };
		const [added] = parsed(await (await add.tool()).invoke(args));
		await (await remove.tool()).invoke({ user_id: added.user_id });
		const [addedAgain] = parsed(await (await add.tool()).invoke(args));
		expect(addedAgain.user_id).not.toBe(added.user_id);
		const members = (await org.admin.get(`/orgs/${org.id}/members`)).body as Array<{
			user_id: string;
			email: string;
		}>;
		expect(members.filter((member) => member.email === email)).toEqual([
			expect.objectContaining({ user_id: addedAgain.user_id }),
		]);
	});

	it("a refused call reaches the model as an error with the API's message, code and status", async () => {
		const session = toolSession(createSessionTool, { credentials: credentials() });
		const call = (await session.tool()).invoke({
			title: 'On a draft',
			lab_version_id: org.draftVersionId,
			capacity: 5,
		});
		await expect(call).rejects.toThrow(
			/draft; publish it first.*\(HTTP 409, Error code: lab_version_not_published\)$/s,
		);
		expect(sessionsTitled('On a draft')).toEqual([]);
	});

	it('a refused create succeeds when called again once its cause is put right', async () => {
		const version = (await org.admin.post(`/labs/${org.labId}/versions`)).body;
		const session = toolSession(createSessionTool, { credentials: credentials() });
		const args = { title: 'Published later', lab_version_id: version.id, capacity: 5 };
		await expect((await session.tool()).invoke(args)).rejects.toThrow(/lab_version_not_published/);
		await org.admin.post(`/labs/${org.labId}/versions/${version.id}/publish`);
		const [created] = parsed(await (await session.tool()).invoke(args));
		expect(sessionsTitled('Published later')).toEqual([created.id]);
	});
});

describe('AI Agent calls (one execution, item index 0 for every call)', () => {
	it('two identical create calls in one turn create two sessions', async () => {
		const session = toolSession(createSessionTool, {
			credentials: credentials(),
			executionId: randomUUID(),
			sharedRun: true,
		});
		const tool = await session.tool();
		const args = { title: 'Via agent', lab_version_id: org.publishedVersionId, capacity: 8 };
		const first = parsed(await tool.invoke(args));
		const second = parsed(await tool.invoke(args));
		expect(first[0].id).not.toBe(second[0].id);
		expect(sessionsTitled('Via agent')).toHaveLength(2);
		expect(session.runs()).toHaveLength(2);
	});

	it('a list call returns at most the limit: Return All is not offered to a model', async () => {
		for (let i = 0; i < 30; i++)
			await org.admin.post('/sessions', {
				title: `Listed ${i}`,
				lab_version_id: org.publishedVersionId,
				capacity: 5,
			});
		const session = toolSession(
			{ resource: 'session', operation: 'getAll', returnAll: true },
			{ credentials: credentials(), executionId: randomUUID(), sharedRun: true },
		);
		expect(parsed(await (await session.tool()).invoke({}))).toHaveLength(25);
	});
});

describe('what a model reads', () => {
	const node = new TrainingLab();
	const operations = node.description.properties
		.filter((property) => property.name === 'operation')
		.flatMap((property) =>
			(property.options as Array<{ value: string }>).map((option) => ({
				resource: property.displayOptions!.show!.resource![0] as string,
				operation: option.value,
			})),
		);

	it.each(operations)(
		'$resource → $operation has a tool description of its own',
		async ({ resource, operation }) => {
			const tool = await toolSession(
				{ resource, operation },
				{ credentials: credentials() },
			).tool();
			expect(tool.description).not.toMatch(/ in Training Lab$/);
			expect(tool.description.length).toBeGreaterThan(80);
		},
	);

	it('irreversible operations say so to the model', async () => {
		for (const [resource, operation] of [
			['organization', 'close'],
			['member', 'remove'],
			['apiKey', 'revoke'],
			['session', 'delete'],
			['webhook', 'delete'],
		]) {
			const tool = await toolSession(
				{ resource, operation },
				{ credentials: credentials() },
			).tool();
			expect(tool.description).toMatch(/Cannot be undone/);
		}
	});

	it('role, tier and event types reach the model with their allowed values, and work', async () => {
		const lab = toolSession(
			{ resource: 'lab', operation: 'create', name: 'Tiered lab' },
			{
				credentials: credentials(),
			},
		);
		const labTool = await lab.tool();
		expect(schemaOf(labTool).tier.description).toMatch(/One of: cluster, container, vm/);
		expect(parsed(await labTool.invoke({ tier: 'VM' }))[0]).toMatchObject({ tier: 'vm' });

		const member = await toolSession(
			{ resource: 'member', operation: 'add', email: 'x@y.test', name: 'X' },
			{ credentials: credentials() },
		).tool();
		expect(schemaOf(member).role.description).toMatch(/One of: admin, trainer/);

		const webhook = await toolSession(
			{ resource: 'webhook', operation: 'create', url: 'http://127.0.0.1:9/hook' },
			{ credentials: credentials() },
		).tool();
		expect(schemaOf(webhook).event_types.description).toMatch(
			/comma-separated list of one or more of: api_key\.created, .*webhook\.disabled/,
		);
		const [endpoint] = parsed(await webhook.invoke({ event_types: 'member.removed, org.closed' }));
		expect(endpoint.event_types).toEqual(['member.removed', 'org.closed']);
	});

	it('every parameter a create needs can come from the model, dates and IDs included', async () => {
		const tool = await toolSession(
			{
				...createSessionTool,
				additionalFields: { startsAt: fromAi('starts_at', 'When it starts, ISO 8601') },
			},
			{ credentials: credentials() },
		).tool();
		expect(Object.keys(schemaOf(tool)).sort()).toEqual(
			['capacity', 'lab_version_id', 'starts_at', 'title'].sort(),
		);
		const [created] = parsed(
			await tool.invoke({
				title: 'All from the model',
				lab_version_id: org.publishedVersionId,
				capacity: 12,
				starts_at: '2027-01-04T09:00:00+01:00',
			}),
		);
		expect(created).toMatchObject({
			title: 'All from the model',
			lab_version_id: org.publishedVersionId,
			capacity: 12,
			starts_at: '2027-01-04T08:00:00.000Z',
		});
	});
});

describe('every operation as a tool', () => {
	it('runs with every input it needs from the model, through the whole life of a lab and a session', async () => {
		const { server: own, org: fresh } = await serverWithOrg(
			{ WEBHOOK_ALLOW_INSECURE_URLS: 'true' },
			'Lifecycle Org',
		);
		const called = new Set<string>();
		const id = (key: string) => ({ __rl: true, mode: 'id', value: fromAi(key, `The ${key}`) });
		async function use(
			resource: string,
			operation: string,
			parameters: Record<string, unknown>,
			args: Record<string, unknown>,
		): Promise<Array<Record<string, any>>> {
			const session = toolSession(
				{ resource, operation, ...parameters },
				{ credentials: { baseUrl: own.url, apiKey: fresh.admin.key! } },
			);
			const tool = await session.tool();
			expect(Object.keys(schemaOf(tool)).sort()).toEqual(Object.keys(args).sort());
			called.add(`${resource}:${operation}`);
			return parsed(await tool.invoke(args));
		}
		try {
			const [me] = await use('identity', 'get', {}, {});
			expect(me.role).toBe('admin');
			const [lab] = await use(
				'lab',
				'create',
				{ name: fromAi('name', 'Lab name') },
				{ name: 'Lifecycle', tier: 'container' },
			);
			expect((await use('lab', 'getAll', {}, {})).map((l) => l.id)).toContain(lab.id);
			const [version] = await use(
				'labVersion',
				'create',
				{ lab: id('lab_id') },
				{ lab_id: lab.id },
			);
			await use(
				'labVersion',
				'publish',
				{ lab: id('lab_id'), labVersion: id('version_id') },
				{ lab_id: lab.id, version_id: version.id },
			);
			const versions = await use('labVersion', 'getAll', { lab: id('lab_id') }, { lab_id: lab.id });
			expect(versions[0]).toMatchObject({ id: version.id, status: 'published' });

			const [session] = await use('session', 'create', createSessionTool, {
				title: 'Lifecycle session',
				lab_version_id: version.id,
				capacity: 2,
			});
			const [{ join_code: code }] = await use(
				'session',
				'rotateJoinCode',
				{ session: id('session_id') },
				{ session_id: session.id },
			);
			await use(
				'participant',
				'join',
				{
					joinCode: fromAi('join_code', 'Join code'),
					email: fromAi('email', 'E-mail'),
					name: fromAi('name', 'Name'),
				},
				{ join_code: code, email: 'p@life.test', name: 'P' },
			);
			for (const operation of ['start', 'end'])
				await use('session', operation, { session: id('session_id') }, { session_id: session.id });
			const [ended] = await use(
				'session',
				'get',
				{ session: id('session_id') },
				{ session_id: session.id },
			);
			expect(ended).toMatchObject({ state: 'ended', participants: 1 });
			expect((await use('session', 'getAll', {}, {})).map((s) => s.id)).toContain(session.id);
			await use('session', 'delete', { session: id('session_id') }, { session_id: session.id });

			const [member] = await use(
				'member',
				'add',
				{ email: fromAi('email', 'E-mail'), name: fromAi('name', 'Name') },
				{ email: 'm@life.test', name: 'M', role: 'trainer' },
			);
			await use(
				'member',
				'updateRole',
				{ member: id('user_id') },
				{ user_id: member.user_id, role: 'admin' },
			);
			expect(
				(await use('member', 'getAll', {}, {})).find((m) => m.user_id === member.user_id),
			).toMatchObject({
				role: 'admin',
			});
			await use('member', 'remove', { member: id('user_id') }, { user_id: member.user_id });

			const [key] = await use(
				'apiKey',
				'create',
				{ name: fromAi('name', 'Key name') },
				{ name: 'for a bot', role: 'trainer' },
			);
			expect((await use('apiKey', 'getAll', {}, {})).map((k) => k.id)).toContain(key.id);
			await use('apiKey', 'revoke', { keyId: fromAi('key_id', 'Key') }, { key_id: key.id });

			const [hook] = await use(
				'webhook',
				'create',
				{ url: fromAi('url', 'Where events go') },
				{ url: 'http://127.0.0.1:9/life', event_types: 'session.created' },
			);
			const webhookId = { webhookId: fromAi('webhook_id', 'Endpoint') };
			await use('webhook', 'get', webhookId, { webhook_id: hook.id });
			expect((await use('webhook', 'getAll', {}, {})).map((w) => w.id)).toEqual([hook.id]);
			await use('webhook', 'getDeliveries', webhookId, { webhook_id: hook.id });
			const [changed] = await use(
				'webhook',
				'update',
				{ ...webhookId, updateFields: { description: fromAi('description', 'What it is for') } },
				{ webhook_id: hook.id, description: 'Lifecycle hook' },
			);
			expect(changed.description).toBe('Lifecycle hook');
			const [test] = await use('webhook', 'sendTest', webhookId, {
				webhook_id: hook.id,
				event_type: 'session.created',
			});
			expect(test).toMatchObject({ test: true, event_type: 'session.created' });
			const [resent] = await use(
				'webhook',
				'resendDelivery',
				{ ...webhookId, deliveryId: fromAi('delivery_id', 'The delivery') },
				{ webhook_id: hook.id, delivery_id: test.id },
			);
			expect(resent).toMatchObject({ id: test.id, resends: 1 });
			const [detail] = await use(
				'webhook',
				'getDelivery',
				{ ...webhookId, deliveryId: fromAi('delivery_id', 'The delivery') },
				{ webhook_id: hook.id, delivery_id: test.id },
			);
			expect(detail).toMatchObject({ id: test.id, attempt_log: expect.any(Array) });
			const [health] = await use('webhook', 'getHealth', webhookId, { webhook_id: hook.id });
			expect(health).toMatchObject({
				waiting: expect.any(Number),
				last_hour: { points: expect.any(Array) },
				last_day: { points: expect.any(Array) },
			});
			const [recovery] = await use(
				'webhook',
				'recoverDeliveries',
				{ ...webhookId, since: fromAi('since', 'Since when, ISO 8601') },
				{ webhook_id: hook.id, since: '2026-01-01T00:00:00Z' },
			);
			expect(recovery).toEqual({ queued: expect.any(Number), since: '2026-01-01T00:00:00.000Z' });
			const [rotated] = await use('webhook', 'rotateSecret', webhookId, { webhook_id: hook.id });
			expect(rotated).toMatchObject({ id: hook.id, secret: expect.stringMatching(/^whsec_/) });
			await use('webhook', 'delete', webhookId, { webhook_id: hook.id });
			expect((await use('activityEvent', 'getAll', {}, {}))[0].type).toBe('webhook.deleted');

			await use('organization', 'close', {}, {});
			expect((await fresh.admin.get('/me')).status).toBe(401);

			const node = new TrainingLab();
			const every = node.description.properties
				.filter((property) => property.name === 'operation')
				.flatMap((property) =>
					(property.options as Array<{ value: string }>).map(
						(option) => `${property.displayOptions!.show!.resource![0]}:${option.value}`,
					),
				);
			expect([...called].sort()).toEqual(every.sort());
		} finally {
			await own.stop();
		}
	});
});
