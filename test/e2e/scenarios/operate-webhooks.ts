import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { ApiClient } from '../../../tooling/api/client';
import { bootstrapOrg, spawnServer, type ServerProcess } from '../../../tooling/api/server-process';
import { eventually } from '../../../tooling/eventually';
import { patiently } from '../../../tooling/n8n/processes';
import { example } from '../../../tooling/n8n/workflows';
import type { E2e } from '../context';

/** An API server of the scenario's own, with one organization, `env` added to its configuration. */
function ownApiServer(e2e: E2e, name: string, env: Record<string, string>) {
	const own = {} as { api: ServerProcess; admin: ApiClient; orgId: string; credentialId: string };
	beforeAll(async () => {
		const databasePath = join(e2e.work, `${name}-api.sqlite`);
		const bootstrapped = bootstrapOrg(databasePath, `E2E ${name}`, `${name}@e2e.test`);
		own.api = await spawnServer(
			{
				DATABASE_PATH: databasePath,
				WEBHOOK_ALLOW_INSECURE_URLS: 'true',
				RATE_LIMIT_REQUESTS: '100000',
				...env,
			},
			'node',
			join(e2e.work, `${name}-api.log`),
		);
		own.admin = new ApiClient(own.api.url, bootstrapped.api_key);
		own.orgId = bootstrapped.org.id;
		own.credentialId = await e2e.credential(`Training Lab ${name}`, own.api.url, own.admin.key!);
	});
	afterAll(() => own.api?.stop());
	return own;
}

/**
 * Webhooks a person operates, in a real n8n: the receiver setting the pace with `Retry-After`, and
 * the shipped workflow that tells a person when deliveries give up.
 */
export function operateWebhookScenarios(e2e: E2e): void {
	describe('a delivery whose execution is still running when the API tries again', () => {
		// The API's default schedule (5 s, then 5 min, …) and delivery timeout (10 s).
		const own = ownApiServer(e2e, 'pace', {});

		it('is answered at the next try seconds after the 20 s execution ends, not at the step 5 minutes later', async () => {
			const workflow = example('react-to-member-removal', {
				YOUR_CREDENTIAL_ID: own.credentialId,
			});
			workflow.nodes[0].webhookId = randomUUID();
			e2e.answeredWhenFinished(20)(workflow);
			const id = await e2e.create(workflow);
			await e2e.activate(id);
			const endpoint = await eventually(
				async () =>
					(await own.admin.get(`/orgs/${own.orgId}/webhooks`)).body.find(
						(hook: { url: string }) => hook.url === e2e.webhookUrlOf(workflow),
					),
				'the trigger to register its endpoint',
				patiently(60_000, e2e.n8n.log),
			);
			const member = (
				await own.admin.post(`/orgs/${own.orgId}/members`, {
					email: `paced-${randomUUID()}@e2e.test`,
					name: 'Paced',
					role: 'trainer',
				})
			).body;
			await own.admin.delete(`/orgs/${own.orgId}/members/${member.user_id}`);

			const deliveries = `/orgs/${own.orgId}/webhooks/${endpoint.id}/deliveries`;
			const delivered = await eventually(
				async () => {
					const [delivery] = (await own.admin.get(`${deliveries}?event_type=member.removed`)).body;
					return delivery?.status === 'succeeded' && delivery;
				},
				'the delivery to succeed',
				patiently(120_000, e2e.n8n.log),
			);
			const [execution] = await e2e.executions(id, (all) => all.length === 1, 'the execution');
			expect(execution.status).toBe('success');
			const log = delivered.attempt_log as Array<{
				attempted_at: string;
				status_code: number | null;
				cause: string;
			}>;
			// Cut off at the API's 10 s timeout; refused 503 while it runs; delivered when it asked.
			expect(log[0]).toMatchObject({ cause: 'schedule', status_code: null });
			expect(log.slice(1, -1).map((attempt) => attempt.status_code)).toEqual(
				log.slice(1, -1).map(() => 503),
			);
			expect(log.at(-1)).toMatchObject({ cause: 'retry_after', status_code: 200 });
			const lateMs = Date.parse(log.at(-1)!.attempted_at) - Date.parse(execution.stoppedAt!);
			const { headers } = (await own.admin.get(`${deliveries}/${delivered.id}`)).body.attempt_log[1]
				.response;
			console.log(
				`Retry-After: an execution of ${(Date.parse(execution.stoppedAt!) - Date.parse(execution.startedAt)) / 1000} s ` +
					`was answered ${lateMs / 1000} s after it ended, attempts ${log.map((a) => `${a.cause}:${a.status_code}`).join(', ')}, ` +
					`first 503 asked for ${headers['retry-after']} s`,
			);
			expect(lateMs).toBeLessThan(60_000);
		}, 180_000);
	});

	describe('the workflow that tells a person when deliveries give up (examples/alert-when-deliveries-give-up.json)', () => {
		// Retries that end within seconds, as the default's end after a day.
		const own = ownApiServer(e2e, 'alerts', { WEBHOOK_RETRY_SCHEDULE_S: '0.5,0.5' });
		let afterAllRestore = () => {};
		afterAll(() => afterAllRestore());

		it('posts one message for a delivery that gave up and one for an endpoint disabled, each naming it', async () => {
			const workflow = example('alert-when-deliveries-give-up', {
				YOUR_CREDENTIAL_ID: own.credentialId,
				YOUR_CHAT_WEBHOOK_URL: `${e2e.notices.url}/chat`,
			});
			const id = await e2e.create(workflow);
			await e2e.activate(id);
			await eventually(
				async () =>
					(await own.admin.get(`/orgs/${own.orgId}/webhooks`)).body.some(
						(hook: { url: string }) => hook.url === e2e.webhookUrlOf(workflow),
					),
				'the trigger to register its endpoint',
				patiently(60_000, e2e.n8n.log),
			);
			const down = 'http://127.0.0.1:9/down';
			await own.admin.post(`/orgs/${own.orgId}/webhooks`, {
				url: down,
				event_types: ['lab.created'],
			});
			const reply = e2e.notices.reply;
			e2e.notices.reply = (delivery) =>
				delivery.path === '/gone' ? { status: 410 } : reply(delivery);
			afterAllRestore = () => (e2e.notices.reply = reply);
			await own.admin.post(`/orgs/${own.orgId}/webhooks`, {
				url: `${e2e.notices.url}/gone`,
				event_types: ['lab.created'],
			});
			await own.admin.post('/labs', { name: 'Nobody hears of it', tier: 'vm' });

			await e2e.notices.waitFor(() => e2e.notices.at('/chat').length >= 2, 60_000);
			await e2e.executions(
				id,
				(all) => all.length === 2 && all.every((execution) => execution.status === 'success'),
				'both alerts',
			);
			const texts = e2e.notices.at('/chat').map((notice) => JSON.parse(notice.body).text);
			expect(texts.sort()).toEqual([
				expect.stringMatching(
					new RegExp(
						`^Training Lab disabled the webhook endpoint ${e2e.notices.url}/gone: The endpoint answered 410 Gone\\.`,
					),
				),
				expect.stringMatching(
					/^Training Lab gave up delivering a lab.created event to http:\/\/127.0.0.1:9\/down after 3 attempts\. Last answer: ECONNREFUSED/,
				),
			]);
		}, 120_000);
	});
}
