import { PollContext } from 'n8n-core';
import {
	Workflow,
	type IDataObject,
	type INode,
	type INodeParameters,
	type IWorkflowExecuteAdditionalData,
	type WorkflowExecuteMode,
} from 'n8n-workflow';
import { TrainingLabActivityTrigger } from '../../nodes/TrainingLabActivityTrigger/TrainingLabActivityTrigger.node';
import { serverWithOrg, type TestOrg } from '../support/fixtures';
import type { TestServer } from '../support/test-server';
import { credentialsHelper, onlyNodeType } from '../support/n8n';
import { PACKAGE_NAME } from '../../tooling/root';

const trigger = new TrainingLabActivityTrigger();

/** n8n's side of a polling trigger: a workflow holding the node and its static data, polled through n8n-core. */
class Poller {
	readonly staticData: IDataObject;
	credentials: { baseUrl: string; apiKey: string };
	#parameters: INodeParameters;

	constructor(
		credentials: { baseUrl: string; apiKey: string },
		parameters: INodeParameters,
		staticData: IDataObject = {},
	) {
		this.credentials = credentials;
		this.#parameters = parameters;
		this.staticData = staticData;
	}

	async poll(mode: WorkflowExecuteMode = 'trigger'): Promise<IDataObject[] | null> {
		const node: INode = {
			id: '4b7c9d2e-2a31-4f5e-9c0d-7e8f9a0b1c2d',
			name: 'Training Lab Activity Trigger',
			type: `${PACKAGE_NAME}.trainingLabActivityTrigger`,
			typeVersion: 1,
			position: [0, 0],
			parameters: this.#parameters,
			credentials: { trainingLabApi: { id: '1', name: 'Training Lab account' } },
		};
		const workflow = new Workflow({
			id: 'poll-workflow',
			name: 'Activity',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes: onlyNodeType(trigger),
			staticData: { [`node:${node.name}`]: this.staticData },
		});
		credentialsHelper.setCredentials({ trainingLabApi: this.credentials });
		const additionalData = {
			credentialsHelper,
			variables: {},
			currentNodeExecutionIndex: 0,
		} as unknown as IWorkflowExecuteAdditionalData;
		const result = await trigger.poll.call(
			new PollContext(workflow, node, additionalData, mode, 'activate'),
		);
		return result === null ? null : result[0].map((item) => item.json);
	}
}

let server: TestServer;
let org: TestOrg;
beforeAll(async () => {
	({ server, org } = await serverWithOrg({ RATE_LIMIT_REQUESTS: '100000' }));
});
afterAll(() => server.stop());

const admin = () => ({ baseUrl: server.url, apiKey: org.admin.key! });
const adminActor = () => ({
	orgId: org.id,
	userId: org.adminUserId,
	email: `admin@${org.slug}.test`,
	role: 'admin' as const,
});
const createLabs = (count: number, prefix: string) => {
	for (let i = 0; i < count; i++)
		server.services.labs.create(adminActor(), { name: `${prefix} ${i}`, tier: 'vm' });
};
/** The organization's events, oldest first, straight from the database. */
const eventsInLog = (): Array<{ id: string; type: string }> =>
	server.db
		.prepare('SELECT id, type FROM events WHERE org_id = ? ORDER BY seq')
		.all(org.id) as Array<{ id: string; type: string }>;

describe('Training Lab Activity Trigger (polling)', () => {
	it('records where the log stands on the first poll and emits nothing', async () => {
		const poller = new Poller(admin(), { events: ['*'] });
		expect(await poller.poll()).toBeNull();
		expect(poller.staticData.lastEventId).toBe(eventsInLog().at(-1)!.id);
		expect(await poller.poll()).toBeNull();
	});

	it('emits every one of 250 events created between two polls (several pages), oldest first, none twice', async () => {
		const poller = new Poller(admin(), { events: ['*'] });
		await poller.poll();
		const before = eventsInLog().length;
		createLabs(250, 'Burst');
		const items = (await poller.poll())!;
		const expected = eventsInLog().slice(before);
		expect(expected).toHaveLength(250);
		expect(items.map((item) => item.id)).toEqual(expected.map((event) => event.id));
		expect(items[0]).toEqual({
			id: expected[0].id,
			type: 'lab.created',
			occurred_at: expect.any(String),
			org_id: org.id,
			actor: `admin@${org.slug}.test`,
			data: expect.objectContaining({ name: 'Burst 0', tier: 'vm' }),
		});
		expect(await poller.poll()).toBeNull();
	});

	it('emits only the selected event types, with the fields of the webhook trigger', async () => {
		const poller = new Poller(admin(), { events: ['member.removed'] });
		await poller.poll();
		createLabs(3, 'Unwatched');
		const member = (
			await org.admin.post(`/orgs/${org.id}/members`, {
				email: `leaver-${Date.now()}@x.test`,
				name: 'Leaver',
				role: 'trainer',
			})
		).body;
		await org.admin.delete(`/orgs/${org.id}/members/${member.user_id}`);
		const items = (await poller.poll())!;
		expect(items).toEqual([
			expect.objectContaining({
				type: 'member.removed',
				org_id: org.id,
				data: { user_id: member.user_id, email: member.email, role: 'trainer' },
			}),
		]);
		expect(Object.keys(items[0]).sort()).toEqual([
			'actor',
			'data',
			'id',
			'occurred_at',
			'org_id',
			'type',
		]);
	});

	it('keeps its position when a poll fails, so the next good poll loses nothing', async () => {
		const poller = new Poller(admin(), { events: ['*'] });
		await poller.poll();
		const position = { ...poller.staticData };
		const before = eventsInLog().length;
		createLabs(5, 'While down');
		poller.credentials = { baseUrl: 'http://127.0.0.1:9/api/v1', apiKey: org.admin.key! };
		await expect(poller.poll()).rejects.toThrow();
		expect(poller.staticData).toEqual(position);
		poller.credentials = admin();
		expect((await poller.poll())!.map((item) => item.id)).toEqual(
			eventsInLog()
				.slice(before)
				.map((e) => e.id),
		);
	});

	it('after a restart (static data reloaded) neither loses nor repeats an event', async () => {
		const first = new Poller(admin(), { events: ['*'] });
		await first.poll();
		createLabs(2, 'Before restart');
		expect(await first.poll()).toHaveLength(2);
		createLabs(3, 'During restart');
		const restarted = new Poller(
			admin(),
			{ events: ['*'] },
			JSON.parse(JSON.stringify(first.staticData)),
		);
		expect((await restarted.poll())!.map((item) => (item.data as IDataObject).name)).toEqual([
			'During restart 0',
			'During restart 1',
			'During restart 2',
		]);
		expect(await restarted.poll()).toBeNull();
	});

	it('can put all new events in one item', async () => {
		const poller = new Poller(admin(), { events: ['lab.created'], output: 'allEvents' });
		await poller.poll();
		createLabs(3, 'Grouped');
		const items = (await poller.poll())!;
		expect(items).toHaveLength(1);
		expect(
			(items[0].events as IDataObject[]).map((event) => (event.data as IDataObject).name),
		).toEqual(['Grouped 0', 'Grouped 1', 'Grouped 2']);
	});

	it('refuses a trainer key with a message naming the admin key it needs', async () => {
		const poller = new Poller({ baseUrl: server.url, apiKey: org.trainer.key! }, { events: ['*'] });
		await expect(poller.poll()).rejects.toThrow(
			/needs an admin API key; this credential's key acts as trainer/,
		);
		expect(poller.staticData).toEqual({});
	});

	it('in the editor (Fetch Test Event) returns the newest matching event, or says there is none', async () => {
		createLabs(1, 'Newest');
		const items = await new Poller(admin(), { events: ['lab.created'] }).poll('manual');
		expect(items).toEqual([
			expect.objectContaining({
				type: 'lab.created',
				data: expect.objectContaining({ name: 'Newest 0' }),
			}),
		]);
		await expect(new Poller(admin(), { events: ['org.closed'] }).poll('manual')).rejects.toThrow(
			'No matching event in the activity log yet',
		);
	});
});
