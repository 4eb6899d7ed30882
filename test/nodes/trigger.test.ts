import { Webhook } from 'standardwebhooks';
import { Workflow, type INode, type INodeParameters } from 'n8n-workflow';
import { TrainingLabTrigger } from '../../nodes/TrainingLabTrigger/TrainingLabTrigger.node';
import { EVENT_TYPES } from '../../server/src/schemas/events';
import { TRIGGER_EVENT_OPTIONS } from '../../nodes/TrainingLabTrigger/events';
import { createOrg, removeTrainers, type TestOrg } from '../support/fixtures';
import { startTestServer, type TestServer } from '../support/test-server';
import { TriggerHarness } from './support/trigger';
import { eventually } from '../../tooling/eventually';
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import { NODE_TYPE } from '../../tooling/root';

let server: TestServer;
beforeAll(async () => {
	server = await startTestServer({
		WEBHOOK_ALLOW_INSECURE_URLS: 'true',
		RATE_LIMIT_REQUESTS: '100000',
		// A delivery the workflow failed is retried within a second.
		WEBHOOK_RETRY_SCHEDULE_S: '0.5,1,2',
	});
});
afterAll(() => server.stop());

let org: TestOrg;
let harness: TriggerHarness;
beforeEach(async () => {
	org = await createOrg(server);
	harness = await TriggerHarness.start({ baseUrl: server.url, apiKey: org.admin.key! }, [
		'member.removed',
		'org.closed',
	]);
});
afterEach(() => harness.stop());

const endpoints = async () =>
	(await org.admin.get(`/orgs/${org.id}/webhooks`)).body as Array<{
		id: string;
		url: string;
		event_types: string[];
	}>;

/** Every timer jest can fake except the clock (Date). */
const REAL_TIMERS: FakeableAPI[] = [
	'hrtime',
	'nextTick',
	'performance',
	'queueMicrotask',
	'requestAnimationFrame',
	'cancelAnimationFrame',
	'requestIdleCallback',
	'cancelIdleCallback',
	'setImmediate',
	'clearImmediate',
	'setInterval',
	'clearInterval',
	'setTimeout',
	'clearTimeout',
];

/** A `webhook-signature` as any Standard Webhooks sender makes it (the public library, not our code). */
function sign(secret: string, id: string, timestamp: number, body: string): string {
	return new Webhook(secret).sign(id, new Date(timestamp * 1000), body);
}

async function post(body: string, headers: Record<string, string>) {
	const response = await fetch(harness.webhookUrl, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		body,
	});
	const retryAfter = response.headers.get('retry-after');
	return {
		status: response.status,
		body: await response.json(),
		...(retryAfter && { retryAfter }),
	};
}

const endpoint = async (id = harness.staticData.webhookId as string) =>
	(await org.admin.get(`/orgs/${org.id}/webhooks/${id}`)).body;
const deliveriesTo = async (id = harness.staticData.webhookId as string) =>
	(await org.admin.get(`/orgs/${org.id}/webhooks/${id}/deliveries`)).body as any[];
const removedIn = (deliveries: Array<{ items: Array<{ json: any }> }>) =>
	deliveries.flatMap((d) => d.items.map((item) => item.json.data.user_id)).sort();

describe('Training Lab Trigger lifecycle', () => {
	it('create registers exactly one endpoint for its URL with the chosen events and receipts, and keeps its id and secret', async () => {
		expect(await harness.run('checkExists')).toBe(false);
		await harness.activate();
		expect(await endpoints()).toEqual([
			expect.objectContaining({
				url: harness.webhookUrl,
				event_types: ['member.removed', 'org.closed'],
				require_receipt: true,
				held_since: null,
			}),
		]);
		const [registered] = await endpoints();
		expect(harness.staticData).toEqual({
			webhookId: registered.id,
			webhookSecret: expect.stringMatching(/^whsec_/),
			webhookWorkflowId: 'trigger-workflow',
		});
		expect(await harness.run('checkExists')).toBe(true);
	});

	it('checkExists reports false once the endpoint was deleted in the API, is held, or its events differ', async () => {
		await harness.activate();
		harness.events = ['member.removed'];
		expect(await harness.run('checkExists')).toBe(false);
		harness.events = ['member.removed', 'org.closed'];
		expect(await harness.run('checkExists')).toBe(true);
		await harness.deactivate();
		expect(await harness.run('checkExists')).toBe(false);
		await org.admin.delete(`/orgs/${org.id}/webhooks/${harness.staticData.webhookId}`);
		expect(await harness.run('checkExists')).toBe(false);
	});

	it('deactivation holds the endpoint and keeps it; activation releases the same one, and the events meanwhile run', async () => {
		await harness.activate();
		const { webhookId, webhookSecret } = harness.staticData;
		expect(await harness.deactivate()).toBe(true);
		expect(await endpoint()).toMatchObject({ id: webhookId, held_since: expect.any(String) });
		expect(harness.staticData).toMatchObject({ webhookId, webhookSecret });

		const meanwhile = (await removeTrainers(org, 2)).sort();
		await server.webhooksIdle();
		expect(harness.deliveries).toEqual([]);
		await harness.activate();
		expect(await endpoints()).toEqual([
			expect.objectContaining({ id: webhookId, held_since: null }),
		]);
		expect(removedIn(await harness.waitForDeliveries(2))).toEqual(meanwhile);
		for (const delivery of harness.deliveries)
			expect(delivery).toMatchObject({ status: 200, receipt: delivery.items[0].json.id });
	});

	it('Events While Inactive set to skip (version 1 by default): activation skips them, recoverably; a save never does', async () => {
		harness.typeVersion = 1;
		await harness.activate();
		await harness.deactivate();
		const since = (await endpoint()).held_since;
		const skipped = (await removeTrainers(org, 2)).sort();
		await harness.activate();
		await server.webhooksIdle();
		expect(harness.deliveries).toEqual([]);
		expect((await deliveriesTo()).map((d) => d.status)).toEqual(['exhausted', 'exhausted']);

		// A save of the active workflow (n8n removes and adds the trigger) keeps what came during it.
		await harness.deactivate();
		const duringSave = await removeTrainers(org, 1);
		await harness.activate('update');
		expect(removedIn(await harness.waitForDeliveries(1))).toEqual(duringSave);

		const recovered = await org.admin.post(
			`/orgs/${org.id}/webhooks/${harness.staticData.webhookId}/recover`,
			{ since },
		);
		expect(recovered.body.queued).toBe(2);
		expect(removedIn((await harness.waitForDeliveries(3)).slice(1))).toEqual(skipped);
	});

	it('version 1.1 runs them by default; set to skip, it skips them', async () => {
		expect(new TrainingLabTrigger().description.defaultVersion).toBe(1.1);
		harness.options = { eventsWhileInactive: 'skip' };
		await harness.activate();
		await harness.deactivate();
		await removeTrainers(org, 1);
		await harness.activate();
		await server.webhooksIdle();
		expect(harness.deliveries).toEqual([]);
		expect((await deliveriesTo())[0]).toMatchObject({ status: 'exhausted' });
	});

	it('saving keeps the endpoint; a delivery waiting for its retry runs at its next attempt, on the saved workflow', async () => {
		await harness.activate();
		const { webhookId } = harness.staticData;
		harness.workflowRun = Promise.resolve(500); // the workflow fails: its delivery waits for a retry
		const [failing] = await removeTrainers(org, 1);
		await harness.waitForDeliveries(1);
		harness.workflowRun = undefined; // fixed and saved
		await harness.save();
		expect(await endpoints()).toEqual([
			expect.objectContaining({ id: webhookId, held_since: null }),
		]);
		const [, retried] = await harness.waitForDeliveries(2);
		expect(retried.status).toBe(200);
		expect(removedIn([retried])).toEqual([failing]);
	});

	it('changes the events and the URL of its endpoint in place, same id', async () => {
		await harness.activate();
		const { webhookId } = harness.staticData;
		harness.events = ['org.closed'];
		await harness.save();
		harness.url = harness.url.replace('127.0.0.1', 'localhost'); // n8n now served at another address
		await harness.deactivate();
		await harness.activate();
		expect(await endpoints()).toEqual([
			expect.objectContaining({
				id: webhookId,
				url: harness.webhookUrl,
				event_types: ['org.closed'],
				held_since: null,
			}),
		]);
		expect(harness.staticData).toMatchObject({ webhookId });
	});

	it('re-keys its endpoint on each activation, accepting the old secret for an hour, then refusing it', async () => {
		await harness.activate();
		const first = harness.staticData.webhookSecret as string;
		await harness.deactivate();
		const activatedAt = Date.now();
		await harness.activate();
		const {
			webhookSecret: second,
			previousWebhookSecret,
			previousSecretExpiresAt,
		} = harness.staticData;
		expect(second).not.toBe(first);
		expect(previousWebhookSecret).toBe(first);
		const expiresAt = Date.parse(previousSecretExpiresAt as string);
		expect(expiresAt - activatedAt).toBeGreaterThanOrEqual(60 * 60 * 1000);
		expect((await endpoint()).previous_secret_expires_at).toBe(previousSecretExpiresAt);

		// A real delivery now carries both signatures, and starts the workflow.
		await removeTrainers(org, 1);
		const [real] = await harness.waitForDeliveries(1);
		expect(real.status).toBe(200);

		/** A delivery signed by the old secret only, as one in flight during the re-key is. */
		const signedByTheOldSecret = (id: string) => {
			const body = JSON.stringify({
				id,
				type: 'member.removed',
				occurred_at: new Date().toISOString(),
				org_id: org.id,
				actor: 'ada@x.test',
				data: { user_id: 'u-old' },
			});
			const timestamp = Math.floor(Date.now() / 1000);
			return post(body, {
				'webhook-id': id,
				'webhook-timestamp': String(timestamp),
				'webhook-signature': sign(first, id, timestamp, body),
			});
		};
		expect((await signedByTheOldSecret('evt-in-flight')).status).toBe(200);
		jest.useFakeTimers({ now: expiresAt, doNotFake: REAL_TIMERS });
		try {
			expect(await signedByTheOldSecret('evt-after-expiry')).toEqual({
				status: 401,
				body: { error: 'Invalid webhook signature' },
			});
		} finally {
			jest.useRealTimers();
		}
	});

	it('registers a new endpoint only when its own is gone; never a duplicate, also when its static data was lost', async () => {
		await harness.activate();
		await org.admin.delete(`/orgs/${org.id}/webhooks/${harness.staticData.webhookId}`);
		await harness.activate();
		const [replacement] = await endpoints();
		expect(replacement.id).toBe(harness.staticData.webhookId);

		for (const key of Object.keys(harness.staticData)) delete harness.staticData[key]; // n8n lost the static data
		await harness.activate(); // create meets 409 url_taken for its own URL and replaces the stale endpoint
		const after = await endpoints();
		expect(after).toEqual([expect.objectContaining({ id: harness.staticData.webhookId })]);
		expect(after[0].id).not.toBe(replacement.id);
	});

	it("a copy of a workflow carrying the original's static data registers its own endpoint and leaves the original's alone", async () => {
		await harness.activate();
		const copy = await TriggerHarness.start(
			{ baseUrl: server.url, apiKey: org.admin.key! },
			['member.removed'],
			'copied-workflow',
		);
		try {
			copy.url = copy.url.replace('127.0.0.1', 'localhost');
			Object.assign(copy.staticData, harness.staticData);
			await copy.activate();
			await copy.deactivate();
			expect(copy.staticData.webhookId).not.toBe(harness.staticData.webhookId);
			expect(await endpoint()).toMatchObject({ url: harness.webhookUrl, held_since: null });
		} finally {
			await copy.stop();
		}
	});

	it('n8n deleting 25 trigger workflows one after another never makes an activation fail on the limit of 20', async () => {
		for (let n = 0; n < 25; n++) {
			const workflow = await TriggerHarness.start(
				{ baseUrl: server.url, apiKey: org.admin.key! },
				['member.removed'],
				`deleted-${n}`,
			);
			try {
				workflow.url = workflow.url.replace('127.0.0.1', `127.0.0.${n + 2}`);
				await workflow.activate();
				await workflow.deactivate(); // archived and deleted in n8n: its endpoint is held
			} finally {
				await workflow.stop();
			}
		}
		await harness.activate();
		expect(await endpoint()).toMatchObject({ held_since: null });
	});
});

describe("Training Lab Trigger and a person's pause", () => {
	it('an endpoint disabled in the API stays disabled across saves and activations, says so in the log, and keeps what came', async () => {
		const warn = jest.spyOn(Container.get(Logger), 'warn').mockImplementation(() => undefined);
		try {
			await harness.activate();
			const { webhookId } = harness.staticData;
			await org.admin.patch(`/orgs/${org.id}/webhooks/${webhookId}`, { disabled: true });
			const since = new Date().toISOString();
			const kept = await removeTrainers(org, 1);
			await harness.save();
			await harness.deactivate();
			kept.push(...(await removeTrainers(org, 1)));
			await harness.activate();
			expect(await endpoints()).toEqual([
				expect.objectContaining({
					id: webhookId,
					disabled_at: expect.any(String),
					held_since: null,
				}),
			]);
			expect(warn).toHaveBeenCalledWith(
				expect.stringMatching(
					new RegExp(
						`^Training Lab Trigger: webhook endpoint ${webhookId} of workflow "Member offboarding" is disabled in Training Lab \\(paused by a person since .+\\): no event reaches this workflow until it is enabled there`,
					),
				),
			);
			await server.webhooksIdle();
			expect(harness.deliveries).toEqual([]);

			// A person enables it and recovers: each kept event runs once.
			await org.admin.patch(`/orgs/${org.id}/webhooks/${webhookId}`, { disabled: false });
			const recovered = await org.admin.post(`/orgs/${org.id}/webhooks/${webhookId}/recover`, {
				since,
			});
			expect(recovered.body.queued).toBe(2);
			expect(removedIn(await harness.waitForDeliveries(2))).toEqual(kept.sort());
			await server.webhooksIdle();
			expect(harness.deliveries).toHaveLength(2);
		} finally {
			warn.mockRestore();
		}
	});
});

describe('Training Lab Trigger activated with a trainer key', () => {
	it('fails activation with a message naming the admin key it needs, and registers nothing', async () => {
		const trainer = await TriggerHarness.start({ baseUrl: server.url, apiKey: org.trainer.key! }, [
			'member.removed',
		]);
		try {
			await expect(trainer.activate()).rejects.toThrow(
				"Registering this trigger's webhook endpoint needs an admin API key; this credential's key acts as trainer",
			);
			expect(trainer.staticData).toEqual({});
		} finally {
			await trainer.stop();
		}
		expect(await endpoints()).toEqual([]);
	});
});

describe('Training Lab Trigger activated in an organization with the most webhook endpoints it may have', () => {
	it("fails activation with the API's message and code, and keeps nothing", async () => {
		for (let n = 1; n <= 20; n++)
			await org.admin.post(`/orgs/${org.id}/webhooks`, {
				url: `http://127.0.0.1:9/other-${n}`,
				event_types: ['org.closed'],
			});
		await expect(harness.activate()).rejects.toThrow(
			'This organization already has 20 webhook endpoints that are not held, the most it may have. Delete one it no longer needs first.',
		);
		expect(harness.staticData).toEqual({});
		expect((await endpoints()).map((endpoint) => endpoint.url)).not.toContain(
			new URL(harness.webhookUrl).href,
		);
	});
});

describe('Training Lab Trigger deactivation while the API is unreachable', () => {
	it('reports the failure instead of hiding it, and keeps the endpoint: the next activation releases it in place', async () => {
		await harness.activate();
		const { webhookId } = harness.staticData;
		const unreachable = await TriggerHarness.start(
			{ baseUrl: 'http://127.0.0.1:9/api/v1', apiKey: org.admin.key! },
			['member.removed'],
		);
		try {
			Object.assign(unreachable.staticData, harness.staticData);
			expect(await unreachable.deactivate()).toBe(false);
			expect(unreachable.staticData.webhookId).toBe(webhookId);
		} finally {
			await unreachable.stop();
		}
		await harness.activate();
		expect(await endpoints()).toEqual([expect.objectContaining({ id: webhookId })]);
	});
});

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
