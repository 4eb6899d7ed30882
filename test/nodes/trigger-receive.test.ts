import { Workflow, type INode, type INodeParameters } from 'n8n-workflow';
import { TrainingLabTrigger } from '../../nodes/TrainingLabTrigger/TrainingLabTrigger.node';
import { EVENT_TYPES } from '../../server/src/schemas/events';
import { TRIGGER_EVENT_OPTIONS } from '../../nodes/TrainingLabTrigger/events';
import { TriggerHarness } from './support/trigger';
import { eventually } from '../../tooling/eventually';
import { NODE_TYPE } from '../../tooling/root';
import {
	triggerSuite,
	server,
	org,
	harness,
	endpoints,
	REAL_TIMERS,
	sign,
	post,
} from './support/trigger-suite';

// The Training Lab Trigger receiving deliveries: verified, filtered, run once per process, answered
// when the API asks (nodes/TrainingLabTrigger/receive.ts).
triggerSuite();

describe('Training Lab Trigger deliveries', () => {
	beforeEach(() => harness.activate());

	it('starts the workflow with the removed member when a member is removed', async () => {
		await org.admin.delete(`/orgs/${org.id}/members/${org.trainerUserId}`);
		const [delivery] = await harness.waitForDeliveries(1);
		expect(delivery.status).toBe(200);
		expect(delivery.items.map((item) => item.json)).toEqual([
			{
				id: expect.any(String),
				type: 'member.removed',
				occurred_at: expect.any(String),
				org_id: org.id,
				actor: `admin@${org.slug}.test`,
				data: { user_id: org.trainerUserId, email: org.trainerEmail, role: 'trainer' },
				webhook_id: expect.any(String),
			},
		]);
		expect(delivery.items[0].json.webhook_id).toBe(delivery.items[0].json.id);
	});

	it('starts the workflow when the organization is closed, although its keys stop working', async () => {
		const closed = (await org.admin.post(`/orgs/${org.id}/close`)).body;
		const [delivery] = await harness.waitForDeliveries(1);
		expect(delivery.items[0].json).toMatchObject({
			type: 'org.closed',
			org_id: org.id,
			data: { org_id: org.id, slug: org.slug, closed_at: closed.closed_at },
		});
	});

	describe('an event delivered again (same webhook-id)', () => {
		/** The event as the API sends it, signed at this second. */
		function delivery(id: string) {
			const body = JSON.stringify({
				id,
				type: 'member.removed',
				occurred_at: new Date().toISOString(),
				org_id: org.id,
				actor: 'ada@x.test',
				data: { user_id: 'u-1' },
			});
			const timestamp = Math.floor(Date.now() / 1000);
			const secret = harness.staticData.webhookSecret as string;
			return post(body, {
				'webhook-id': id,
				'webhook-timestamp': String(timestamp),
				'webhook-signature': sign(secret, id, timestamp, body),
			});
		}

		it('after its execution was answered 2xx, is acknowledged and starts nothing', async () => {
			expect((await delivery('evt-again')).status).toBe(200);
			expect(await delivery('evt-again')).toEqual({
				status: 200,
				body: { received: true, duplicate: true },
			});
			expect(harness.deliveries.map((d) => d.items.length)).toEqual([1, 0]);
		});

		it('while its execution runs, gets 503 and starts nothing; after that execution failed, runs again', async () => {
			let endRun!: (status: 200 | 500) => void;
			harness.workflowRun = new Promise((resolve) => (endRun = resolve));
			const first = delivery('evt-running');
			await eventually(
				() => harness.deliveries.length === 0 && harness.pendingRuns === 1,
				'the first run to start',
			);
			// Asked about again in 2 s (the least), not at the API's next step of minutes.
			expect(await delivery('evt-running')).toEqual({
				status: 503,
				body: { error: expect.stringMatching(/still being executed/) },
				retryAfter: '2',
			});
			endRun(500);
			expect((await first).status).toBe(500);
			harness.workflowRun = undefined;
			expect((await delivery('evt-running')).status).toBe(200);
			expect(harness.deliveries.map((d) => [d.status, d.items.length])).toEqual([
				[503, 0],
				[500, 1],
				[200, 1],
			]);
		});

		it('while its execution runs, gets 503 for as long as the trigger is set to give up after, then runs', async () => {
			// The clock is held still and moved by hand; timers stay real.
			jest.useFakeTimers({ now: Date.now(), doNotFake: REAL_TIMERS });
			try {
				harness.options = { acknowledge: 'whenFinished', giveUpAfterMinutes: 0.1 };
				harness.workflowRun = new Promise(() => undefined); // an execution that never ends
				// Never answered: the request is cut when the harness stops.
				delivery('evt-lost').catch(() => undefined);
				await eventually(() => harness.pendingRuns === 1, 'the first run to start');
				jest.setSystemTime(Date.now() + 6_000);
				// Half the time it has run, so a long execution is not asked about every few seconds.
				expect(await delivery('evt-lost')).toMatchObject({ status: 503, retryAfter: '3' });
				jest.setSystemTime(Date.now() + 1);
				harness.workflowRun = undefined;
				expect((await delivery('evt-lost')).status).toBe(200);
				expect(harness.deliveries.map((d) => [d.status, d.items.length])).toEqual([
					[503, 0],
					[200, 1],
				]);
			} finally {
				jest.useRealTimers();
			}
		});

		it('for another trigger (another workflow) starts that one too', async () => {
			expect((await delivery('evt-shared')).status).toBe(200);
			const other = await TriggerHarness.start(
				{ baseUrl: server.url, apiKey: org.admin.key! },
				['member.removed'],
				'another-workflow',
			);
			try {
				Object.assign(other.staticData, harness.staticData);
				const body = JSON.stringify({ id: 'evt-shared', type: 'member.removed', data: {} });
				const timestamp = Math.floor(Date.now() / 1000);
				const response = await fetch(other.webhookUrl, {
					method: 'POST',
					headers: {
						'content-type': 'application/json',
						'webhook-id': 'evt-shared',
						'webhook-timestamp': String(timestamp),
						'webhook-signature': sign(
							harness.staticData.webhookSecret as string,
							'evt-shared',
							timestamp,
							body,
						),
					},
					body,
				});
				expect(response.status).toBe(200);
				expect(other.deliveries.map((d) => d.items.length)).toEqual([1]);
			} finally {
				await other.stop();
			}
		});
	});

	describe('refuses with 401, starting nothing', () => {
		const event = () =>
			JSON.stringify({
				id: 'evt-1',
				type: 'member.removed',
				occurred_at: new Date().toISOString(),
				org_id: org.id,
				actor: 'mallory@x.test',
				data: {},
			});
		const now = () => Math.floor(Date.now() / 1000);

		it.each([
			[
				'a tampered body',
				(secret: string) => {
					const body = event();
					return {
						body: body.replace('mallory', 'trudy'),
						headers: {
							'webhook-id': 'evt-1',
							'webhook-timestamp': String(now()),
							'webhook-signature': sign(secret, 'evt-1', now(), body),
						},
					};
				},
			],
			[
				'a wrong secret',
				() => {
					const body = event();
					return {
						body,
						headers: {
							'webhook-id': 'evt-1',
							'webhook-timestamp': String(now()),
							'webhook-signature': sign(
								`whsec_${Buffer.alloc(32, 1).toString('base64')}`,
								'evt-1',
								now(),
								body,
							),
						},
					};
				},
			],
			[
				'a missing signature header',
				() => ({
					body: event(),
					headers: { 'webhook-id': 'evt-1', 'webhook-timestamp': String(now()) },
				}),
			],
			[
				'a timestamp 6 minutes old',
				(secret: string) => {
					const body = event();
					const old = now() - 6 * 60;
					return {
						body,
						headers: {
							'webhook-id': 'evt-1',
							'webhook-timestamp': String(old),
							'webhook-signature': sign(secret, 'evt-1', old, body),
						},
					};
				},
			],
			[
				'a timestamp 6 minutes ahead',
				(secret: string) => {
					const body = event();
					const ahead = now() + 6 * 60;
					return {
						body,
						headers: {
							'webhook-id': 'evt-1',
							'webhook-timestamp': String(ahead),
							'webhook-signature': sign(secret, 'evt-1', ahead, body),
						},
					};
				},
			],
			[
				'a signature for another webhook-id',
				(secret: string) => {
					const body = event();
					return {
						body,
						headers: {
							'webhook-id': 'evt-2',
							'webhook-timestamp': String(now()),
							'webhook-signature': sign(secret, 'evt-1', now(), body),
						},
					};
				},
			],
		])('%s', async (_name, forge) => {
			const { body, headers } = forge(harness.staticData.webhookSecret as string);
			const response = await post(body, headers);
			expect(response).toEqual({ status: 401, body: { error: 'Invalid webhook signature' } });
			expect(harness.deliveries).toEqual([{ status: 401, items: [] }]);
		});

		it.each([
			['empty', ''],
			['garbage', 'garbage'],
			['v1 without a value', 'v1,'],
			['not base64', 'v1,!!!!'],
			['another version', `v2,${Buffer.alloc(32).toString('base64')}`],
			['a huge value', `v1,${'A'.repeat(12_000)}`],
			['many entries', Array.from({ length: 50 }, () => 'v1,AAAA').join(' ')],
		])('a malformed signature header (%s), without throwing', async (_name, signature) => {
			const response = await post(event(), {
				'webhook-id': 'evt-1',
				'webhook-timestamp': String(now()),
				'webhook-signature': signature,
			});
			expect(response.status).toBe(401);
			expect(harness.deliveries.at(-1)).toEqual({ status: 401, items: [] });
		});
	});

	it('accepts a correctly signed delivery whatever the key order, and tries every v1 signature', async () => {
		const secret = harness.staticData.webhookSecret as string;
		const body = JSON.stringify({
			data: { user_id: 'u' },
			type: 'member.removed',
			id: 'evt-9',
			org_id: org.id,
			actor: 'a',
			occurred_at: 'now',
		});
		const ts = Math.floor(Date.now() / 1000);
		const signature = `v1,${Buffer.alloc(32, 9).toString('base64')} ${sign(secret, 'evt-9', ts, body)}`;
		const response = await post(body, {
			'webhook-id': 'evt-9',
			'webhook-timestamp': String(ts),
			'webhook-signature': signature,
		});
		expect(response.status).toBe(200);
		expect(harness.deliveries.at(-1)!.items[0].json).toMatchObject({
			id: 'evt-9',
			type: 'member.removed',
			webhook_id: 'evt-9',
		});
	});

	it('acknowledges and ignores a signed event of a type not selected', async () => {
		const secret = harness.staticData.webhookSecret as string;
		const body = JSON.stringify({
			id: 'evt-5',
			type: 'lab.created',
			occurred_at: 'now',
			org_id: org.id,
			actor: 'a',
			data: {},
		});
		const ts = Math.floor(Date.now() / 1000);
		const response = await post(body, {
			'webhook-id': 'evt-5',
			'webhook-timestamp': String(ts),
			'webhook-signature': sign(secret, 'evt-5', ts, body),
		});
		expect(response).toEqual({ status: 200, body: { received: true, ignored: true } });
		expect(harness.deliveries.at(-1)!.items).toEqual([]);
	});
});

describe('Training Lab Trigger and test events', () => {
	const endpointOf = async (url: string) => (await endpoints()).find((e) => e.url === url);
	const deliveriesTo = async (webhookId: string) =>
		(await org.admin.get(`/orgs/${org.id}/webhooks/${webhookId}/deliveries`)).body;

	it('of an active workflow: a test event is acknowledged and starts nothing, unless Run on Test Events is on', async () => {
		await harness.activate();
		const webhookId = harness.staticData.webhookId as string;
		const sendTest = () =>
			org.admin.post(`/orgs/${org.id}/webhooks/${webhookId}/test`, {
				event_type: 'member.removed',
			});
		expect((await sendTest()).status).toBe(202);
		const [ignored] = await harness.waitForDeliveries(1);
		expect(ignored).toEqual({ status: 200, receipt: expect.any(String), items: [] });
		// The trigger has answered; the outbox records that answer just after.
		await server.webhooksIdle();
		expect((await deliveriesTo(webhookId))[0]).toMatchObject({ test: true, status: 'succeeded' });

		harness.options = { options: { runOnTestEvents: true } };
		await sendTest();
		const [, ran] = await harness.waitForDeliveries(2);
		expect(ran.items.map((item) => item.json)).toEqual([
			expect.objectContaining({
				type: 'member.removed',
				test: true,
				data: expect.objectContaining({ email: 'grace.hopper@example.com' }),
			}),
		]);
	});

	it('listening in the editor: registers an endpoint for the test URL, asks for a sample of the first selected type, and runs it', async () => {
		harness.listening = true;
		harness.events = ['org.closed', 'member.removed'];
		await harness.activate();
		const endpoint = await endpointOf(harness.webhookUrl);
		expect(endpoint).toMatchObject({ event_types: ['org.closed', 'member.removed'] });
		const [delivery] = await harness.waitForDeliveries(1);
		expect(delivery.status).toBe(200);
		expect(delivery.items.map((item) => item.json)).toEqual([
			{
				id: expect.any(String),
				webhook_id: expect.any(String),
				type: 'org.closed',
				occurred_at: expect.any(String),
				org_id: org.id,
				actor: `admin@${org.slug}.test`,
				data: {
					org_id: '00000000-0000-4000-8000-000000000002',
					name: 'Example Organization (sample)',
					slug: 'example-organization',
					closed_at: expect.any(String),
				},
				test: true,
			},
		]);
		// n8n stops listening after that event: the test endpoint goes, and nothing of the organization changed.
		expect(await harness.deactivate()).toBe(true);
		expect(await endpoints()).toEqual([]);
		expect((await org.admin.get('/me')).status).toBe(200);
	});

	it('listening with Send a Sample When Listening off: no test event is asked for', async () => {
		harness.listening = true;
		harness.options = { options: { sampleWhenListening: false } };
		await harness.activate();
		const endpoint = await endpointOf(harness.webhookUrl);
		expect(endpoint).toBeDefined();
		await server.webhooksIdle();
		expect(await deliveriesTo(endpoint!.id)).toEqual([]);
		expect(harness.deliveries).toEqual([]);
	});
});

describe('Training Lab Trigger and resends', () => {
	beforeEach(() => harness.activate());
	const deliveriesOf = async () =>
		(
			await org.admin.get(
				`/orgs/${org.id}/webhooks/${harness.staticData.webhookId as string}/deliveries`,
			)
		).body;

	it('runs the workflow again for a resend a person asked for, in the process that ran the event; not for an automatic repeat of it', async () => {
		await org.admin.delete(`/orgs/${org.id}/members/${org.trainerUserId}`);
		const [first] = await harness.waitForDeliveries(1);
		const [delivery] = await deliveriesOf();
		const webhookId = harness.staticData.webhookId as string;
		const resend = `/orgs/${org.id}/webhooks/${webhookId}/deliveries/${delivery.id}/resend`;
		expect((await org.admin.post(resend)).status).toBe(202);
		const [, resent] = await harness.waitForDeliveries(2);
		expect(resent.status).toBe(200);
		expect(resent.items.map((item) => item.json)).toEqual([{ ...first.items[0].json, resend: 1 }]);

		// The resend delivered once more as the API would repeat it (same body, same webhook-id): acknowledged, nothing run.
		const secret = harness.staticData.webhookSecret as string;
		const body = JSON.stringify({ ...first.items[0].json, webhook_id: undefined, resend: 1 });
		const ts = Math.floor(Date.now() / 1000);
		const id = first.items[0].json.id as string;
		expect(
			await post(body, {
				'webhook-id': id,
				'webhook-timestamp': String(ts),
				'webhook-signature': sign(secret, id, ts, body),
			}),
		).toEqual({ status: 200, body: { received: true, duplicate: true } });
		expect(harness.deliveries.map((d) => d.items.length)).toEqual([1, 1, 0]);
	});
});

describe('Training Lab Trigger events', () => {
	it('offers every event type the server emits, member.removed and org.closed first', () => {
		const values = TRIGGER_EVENT_OPTIONS.map((option) => option.value);
		expect(values.slice(0, 2)).toEqual(['member.removed', 'org.closed']);
		expect([...values].sort()).toEqual([...EVENT_TYPES].sort());
		const rest = TRIGGER_EVENT_OPTIONS.slice(2).map((option) => option.name);
		expect(rest).toEqual([...rest].sort((a, b) => a.localeCompare(b)));
		expect(TRIGGER_EVENT_OPTIONS.slice(0, 2).every((option) => option.description)).toBe(true);
	});
});

describe('Acknowledge Deliveries', () => {
	/** How n8n answers a delivery for these parameters: the webhook's response mode as n8n evaluates it. */
	function responseModeFor(parameters: INodeParameters): unknown {
		const node: INode = {
			id: 'c0ffee00-0000-4000-8000-000000000001',
			name: 'Training Lab Trigger',
			type: NODE_TYPE.trainingLabTrigger,
			typeVersion: 1,
			position: [0, 0],
			parameters,
		};
		const nodeType = new TrainingLabTrigger();
		const workflow = new Workflow({
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes: {
				getByName: () => nodeType,
				getByNameAndVersion: () => nodeType,
				getKnownTypes: () => ({}),
			},
		});
		return workflow.expression.getSimpleParameterValue(
			node,
			nodeType.description.webhooks![0].responseMode,
			'webhook',
			{},
			undefined,
			'onReceived',
		);
	}

	it('answers the API on receipt, by default and when chosen', () => {
		expect(responseModeFor({ events: ['member.removed'] })).toBe('onReceived');
		expect(responseModeFor({ events: ['member.removed'], acknowledge: 'onReceipt' })).toBe(
			'onReceived',
		);
	});

	it('answers once the workflow has finished when chosen', () => {
		expect(responseModeFor({ events: ['member.removed'], acknowledge: 'whenFinished' })).toBe(
			'lastNode',
		);
	});
});
