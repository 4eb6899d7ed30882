import { removeTrainers } from '../support/fixtures';
import { TrainingLabTrigger } from '../../nodes/TrainingLabTrigger/TrainingLabTrigger.node';
import { TriggerHarness } from './support/trigger';
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import {
	triggerSuite,
	server,
	org,
	harness,
	endpoints,
	REAL_TIMERS,
	sign,
	post,
	endpoint,
	deliveriesTo,
	removedIn,
} from './support/trigger-suite';

// The Training Lab Trigger's endpoint through what n8n does to the workflow: activation, saves,
// deactivation, a person's pause, keys and bounds that refuse it (nodes/TrainingLabTrigger/lifecycle.ts).
triggerSuite();

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

		// Deactivated, events kept; then n8n loses the static data (its database restored, say).
		await harness.deactivate();
		const kept = (await removeTrainers(org, 2)).sort();
		const lostSecret = harness.staticData.webhookSecret as string;
		for (const key of Object.keys(harness.staticData)) delete harness.staticData[key];
		// create meets 409 url_taken for its own URL: it takes the endpoint over, with what it kept.
		await harness.activate();
		expect(await endpoints()).toEqual([
			expect.objectContaining({ id: replacement.id, held_since: null, held_reason: null }),
		]);
		expect(harness.staticData).toMatchObject({ webhookId: replacement.id });
		expect(harness.staticData.webhookSecret).not.toBe(lostSecret);
		expect(removedIn(await harness.waitForDeliveries(2))).toEqual(kept);
		for (const delivery of harness.deliveries) expect(delivery.status).toBe(200);
		// The secret it lost, which this workflow never had, signs nothing any more.
		const body = JSON.stringify({ id: 'evt-lost', type: 'member.removed', data: {} });
		const timestamp = Math.floor(Date.now() / 1000);
		expect(
			(
				await post(body, {
					'webhook-id': 'evt-lost',
					'webhook-timestamp': String(timestamp),
					'webhook-signature': sign(lostSecret, 'evt-lost', timestamp, body),
				})
			).status,
		).toBe(401);
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
