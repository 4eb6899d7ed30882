import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { ApiClient, demoVersionsOf } from '../../../tooling/api/client';
import { bootstrapOrg, spawnServer, type ServerProcess } from '../../../tooling/api/server-process';
import { ensureChromium, launchChromium } from '../../../tooling/browser';
import { eventually } from '../../../tooling/eventually';
import { patiently } from '../../../tooling/n8n/processes';
import { createSessionNode, example, workflowNode } from '../../../tooling/n8n/workflows';
import type { E2e } from '../context';
import { N8nEditor } from '../n8n-editor';
import { NODE_TYPE } from '../../../tooling/root';

const TRIGGER = 'Member removed';

/**
 * Events a person tries, resends and recovers: a test event reaches a workflow being built and an
 * active workflow acknowledges and ignores it; a resend runs an event whose execution failed again,
 * its Training Lab create once; a recovery after n8n was away longer than the retry schedule
 * delivers every event of the gap, one session per event.
 */
export function replayScenarios(e2e: E2e): void {
	/** Trigger → Create session `<title> <user_id>` (keyed by the node on the event) → a notice. */
	function sessionPerRemoval(options: {
		name: string;
		credentialId: string;
		publishedVersion: string;
		title: string;
		noticePath: string;
	}) {
		const credentials = { trainingLabApi: { id: options.credentialId, name: options.name } };
		return {
			name: options.name,
			settings: { executionOrder: 'v1' },
			nodes: [
				workflowNode(TRIGGER, NODE_TYPE.trainingLabTrigger, 0, {
					typeVersion: 1,
					webhookId: randomUUID(),
					parameters: { events: ['member.removed'] },
					credentials,
				}),
				createSessionNode(200, {
					title: `=${options.title} {{ $json.data.user_id }}`,
					labVersion: options.publishedVersion,
					capacity: 5,
					credential: credentials.trainingLabApi,
				}),
				e2e.noticeNode(
					options.noticePath,
					'user_id',
					`={{ $('${TRIGGER}').item.json.data.user_id }}`,
					400,
				),
			],
			connections: {
				[TRIGGER]: { main: [[{ node: 'Create session', type: 'main', index: 0 }]] },
				'Create session': { main: [[{ node: 'Send notice', type: 'main', index: 0 }]] },
			},
		};
	}

	/** Sessions of the organization titled `<title> <user_id>`, counted by member. */
	async function sessionsTitled(api: ApiClient, title: string): Promise<Map<string, number>> {
		const counts = new Map<string, number>();
		for (const session of (await api.getAll<{ title: string }>('/sessions?limit=200')).items) {
			if (!session.title.startsWith(`${title} `)) continue;
			const member = session.title.slice(title.length + 1);
			counts.set(member, (counts.get(member) ?? 0) + 1);
		}
		return counts;
	}

	describe('test events', () => {
		it('an active workflow acknowledges a test event and runs nothing for it', async () => {
			const { client: api, org } = e2e.org('testEvents');
			const id = await e2e.memberRemovalTrigger('testEvents');
			const [endpoint] = await e2e.endpointsOf('testEvents');
			const test = await api.post(`/orgs/${org.id}/webhooks/${endpoint.id}/test`, {
				event_type: 'member.removed',
			});
			expect(test.status).toBe(202);
			await eventually(
				() =>
					e2e
						.deliveriesOf('testEvents')
						.some((d) => d.event_id === test.body.event_id && d.status === 'succeeded'),
				'n8n to acknowledge the test event',
				patiently(60_000, e2e.n8n.log),
			);
			// A real removal after it: once its execution is there, the test event added none.
			const [member] = await e2e.addTrainers('testEvents', 1);
			await api.delete(`/orgs/${org.id}/members/${member.user_id}`);
			const executions = await e2e.executions(
				id,
				(all) => all.length > 0 && all[0].status === 'success',
				'the real removal to run',
			);
			expect(executions).toHaveLength(1);
			expect(e2e.notifiedMembers(executions)).toEqual([member.user_id]);
			expect(e2e.noticesSent('testEvents')).toEqual([member.user_id]);
		});
	});

	describe('a resend', () => {
		it('of an event whose execution failed runs it again, and its Training Lab create happens once', async () => {
			const { client: api, org } = e2e.org('resend');
			const credentialId = await e2e.credentialOf('resend');
			const { published } = await demoVersionsOf(api);
			const workflow = sessionPerRemoval({
				name: 'Resend after a failure',
				credentialId,
				publishedVersion: published,
				title: 'Resent',
				noticePath: 'resend',
			});
			// The notice's receiver is down for the first run: that execution fails after the create.
			let refused = 0;
			const previousReply = e2e.notices.reply;
			e2e.notices.reply = (delivery) =>
				delivery.path === '/resend' && refused++ === 0 ? { status: 500 } : { status: 204 };
			try {
				const id = await e2e.createTrigger(workflow, 'resend');
				const [member] = await e2e.addTrainers('resend', 1);
				await api.delete(`/orgs/${org.id}/members/${member.user_id}`);
				const [failed] = await e2e.executions(
					id,
					(all) => all.length === 1 && all[0].status === 'error',
					'the first execution to fail',
				);
				expect(e2e.nodeOutput(failed, 'Create session')).toHaveLength(1);
				expect(await sessionsTitled(api, 'Resent')).toEqual(new Map([[member.user_id, 1]]));

				// Acknowledged on receipt, the delivery succeeded: only a person's resend brings the event back.
				const [endpoint] = await e2e.endpointsOf('resend');
				const [delivery] = (await api.get(`/orgs/${org.id}/webhooks/${endpoint.id}/deliveries`))
					.body;
				expect(delivery.status).toBe('succeeded');
				const resent = await api.post(
					`/orgs/${org.id}/webhooks/${endpoint.id}/deliveries/${delivery.id}/resend`,
				);
				expect(resent.status).toBe(202);
				const executions = await e2e.executions(
					id,
					(all) => all.length === 2 && all[0].status === 'success',
					'the resend to run',
				);
				expect(e2e.nodeOutput(executions[0], TRIGGER)).toEqual([
					expect.objectContaining({ webhook_id: delivery.event_id, resend: 1 }),
				]);
				expect(e2e.nodeOutput(executions[0], 'Create session')).toEqual(
					e2e.nodeOutput(failed, 'Create session'),
				);
				expect(e2e.noticesSent('resend')).toEqual([member.user_id, member.user_id]);
				expect(await sessionsTitled(api, 'Resent')).toEqual(new Map([[member.user_id, 1]]));
				await e2e.deliveriesSettled('resend');
				expect(await e2e.client.executions(id)).toHaveLength(2);
			} finally {
				e2e.notices.reply = previousReply;
			}
		});
	});

	describe('a recovery after n8n was away longer than the retry schedule', () => {
		// An API server of its own whose retries end within seconds, as the default's end after a day.
		let api: ServerProcess;
		let admin: ApiClient;
		let orgId: string;
		beforeAll(async () => {
			const databasePath = join(e2e.work, 'recovery-api.sqlite');
			const bootstrapped = bootstrapOrg(databasePath, 'E2E recovery', 'recovery@e2e.test');
			api = await spawnServer(
				{
					DATABASE_PATH: databasePath,
					WEBHOOK_ALLOW_INSECURE_URLS: 'true',
					WEBHOOK_RETRY_SCHEDULE_S: '1,1',
					RATE_LIMIT_REQUESTS: '100000',
				},
				'node',
				join(e2e.work, 'recovery-api.log'),
			);
			admin = new ApiClient(api.url, bootstrapped.api_key);
			orgId = bootstrapped.org.id;
		});
		afterAll(() => api?.stop());

		it(
			'delivers every event of the gap once n8n is back, one session per event; recovering again sends nothing',
			async () => {
				const credentialId = await e2e.credential('Training Lab recovery', api.url, admin.key!);
				const { published } = await demoVersionsOf(admin);
				const workflow = sessionPerRemoval({
					name: 'Recover the gap',
					credentialId,
					publishedVersion: published,
					title: 'Recovered',
					noticePath: 'recovered',
				});
				const id = await e2e.create(workflow);
				await e2e.activate(id);
				const endpoints = async () =>
					(await admin.get(`/orgs/${orgId}/webhooks`)).body as Array<{ id: string; url: string }>;
				const [endpoint] = await eventually(
					async () => (await endpoints()).length === 1 && endpoints(),
					'the trigger to register its endpoint',
					patiently(60_000, e2e.n8n.log),
				);
				const deliveriesPath = `/orgs/${orgId}/webhooks/${endpoint.id}/deliveries?limit=200`;

				const since = new Date().toISOString();
				await e2e.n8n.kill();
				const members: string[] = [];
				for (let i = 0; i < 10; i++) {
					const added = await admin.post(`/orgs/${orgId}/members`, {
						email: `gap-${i}@e2e.test`,
						name: `Gap ${i}`,
						role: 'trainer',
					});
					await admin.delete(`/orgs/${orgId}/members/${added.body.user_id}`);
					members.push(added.body.user_id);
				}
				// The API gave every event of the gap up: three attempts each, n8n away for all of them.
				await eventually(
					async () => {
						const deliveries = (await admin.get(deliveriesPath)).body as Array<{ status: string }>;
						return deliveries.length === 10 && deliveries.every((d) => d.status === 'exhausted');
					},
					'every delivery of the gap to be given up',
					patiently(60_000),
				);
				await e2e.n8n.restart();
				// Recovered once n8n is reached: each delivery has three tries within two seconds.
				await e2e.webhooksReached();
				const recoveredAt = Date.now();
				const recovered = await admin.post(`/orgs/${orgId}/webhooks/${endpoint.id}/recover`, {
					since,
				});
				expect(recovered.body).toEqual({ queued: 10, since });
				const executions = await e2e.executions(
					id,
					(all) => all.length >= 10 && all.every((e) => e.status === 'success'),
					'an execution per event of the gap',
					240_000,
				);
				expect(executions).toHaveLength(10);
				const lastStopped = Math.max(
					...executions.map((execution) => Date.parse(execution.stoppedAt ?? execution.startedAt)),
				);
				console.log(
					`n8n ${e2e.n8n.version} (${e2e.topology.executors.join(', ')}): 10 events given up while n8n was down, ` +
						`recovered with one request; the last execution ended ${((lastStopped - recoveredAt) / 1000).toFixed(1)} s after it`,
				);
				const sessions = await sessionsTitled(admin, 'Recovered');
				expect([...sessions.keys()].sort()).toEqual([...members].sort());
				expect([...sessions.values()].every((count) => count === 1)).toBe(true);

				// Recovering again is safe: nothing failed is left, nothing is sent, nothing is created.
				const again = await admin.post(`/orgs/${orgId}/webhooks/${endpoint.id}/recover`, { since });
				expect(again.body.queued).toBe(0);
				expect(await e2e.client.executions(id)).toHaveLength(10);
				expect((await sessionsTitled(admin, 'Recovered')).size).toBe(10);
			},
			8 * 60_000,
		);
	});
}

/**
 * In n8n's editor, in Chromium: *Execute workflow* on a workflow whose Training Lab Trigger is not
 * active gets a sample event of the trigger's type within seconds, without a real one.
 */
export function editorScenarios(e2e: E2e): void {
	describe("a test event in n8n's editor", () => {
		let browser: Browser;
		beforeAll(async () => {
			ensureChromium('The n8n editor test');
			browser = await launchChromium();
		});
		afterAll(() => browser?.close());

		it('Execute workflow on a Training Lab Trigger gets a sample member.removed, and nothing in the organization changes', async () => {
			const { client: api, org } = e2e.org('editor');
			const credentialId = await e2e.credentialOf('editor');
			const workflow = example('react-to-member-removal', { YOUR_CREDENTIAL_ID: credentialId });
			workflow.nodes[0].webhookId = randomUUID();
			const id = await e2e.create(workflow);
			const membersBefore = (await api.get(`/orgs/${org.id}/members`)).body;

			const editor = await N8nEditor.signIn(browser, e2e.n8n.url);
			try {
				await editor.openWorkflow(id);
				await editor.executeWorkflow();
				// What the person sees: the notice node's output, made from the sample event.
				await editor.openWhenRun('Offboarding notice', 60_000);
				await editor.output.getByText('grace.hopper@example.com').first().waitFor();
				expect(await editor.output.textContent()).toContain('00000000-0000-4000-8000-000000000001');
			} finally {
				await editor.close();
			}

			// The listening endpoint was registered for the test URL, sent one test event, and deleted.
			const log = (await api.get(`/orgs/${org.id}/events?limit=10`)).body as Array<{
				type: string;
				data: { url: string };
			}>;
			expect(log.slice(0, 3).map((event) => event.type)).toEqual([
				'webhook.deleted',
				'webhook.test_sent',
				'webhook.created',
			]);
			expect(log[2].data.url).toContain('/webhook-test/');
			expect(await e2e.endpointsOf('editor')).toEqual([]);
			expect((await api.get(`/orgs/${org.id}/members`)).body).toEqual(membersBefore);
			const [execution] = await e2e.client.executions(id);
			expect(e2e.nodeOutput(execution, 'Offboarding notice')).toEqual([
				expect.objectContaining({ email: 'grace.hopper@example.com', role: 'trainer' }),
			]);
		});
	});
}
