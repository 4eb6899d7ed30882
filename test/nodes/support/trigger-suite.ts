import { Webhook } from 'standardwebhooks';
import { createOrg, type TestOrg } from '../../support/fixtures';
import { startTestServer, type TestServer } from '../../support/test-server';
import { TriggerHarness } from './trigger';

// What the Training Lab Trigger's tests share: the real server, a fresh organization and trigger
// harness for each test, and the ways to post to the trigger and read what the API holds.
export let server: TestServer;
export let org: TestOrg;
export let harness: TriggerHarness;

/** Registers the suite's set-up: call it once at the top of a test file. */
export function triggerSuite(): void {
	beforeAll(async () => {
		server = await startTestServer({
			WEBHOOK_ALLOW_INSECURE_URLS: 'true',
			RATE_LIMIT_REQUESTS: '100000',
			// A delivery the workflow failed is retried within a second.
			WEBHOOK_RETRY_SCHEDULE_S: '0.5,1,2',
		});
	});
	afterAll(() => server.stop());
	beforeEach(async () => {
		org = await createOrg(server);
		harness = await TriggerHarness.start({ baseUrl: server.url, apiKey: org.admin.key! }, [
			'member.removed',
			'org.closed',
		]);
	});
	afterEach(() => harness.stop());
}

export const endpoints = async () =>
	(await org.admin.get(`/orgs/${org.id}/webhooks`)).body as Array<{
		id: string;
		url: string;
		event_types: string[];
	}>;

/** Every timer jest can fake except the clock (Date). */
export const REAL_TIMERS: FakeableAPI[] = [
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
export function sign(secret: string, id: string, timestamp: number, body: string): string {
	return new Webhook(secret).sign(id, new Date(timestamp * 1000), body);
}

export async function post(body: string, headers: Record<string, string>) {
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

export const endpoint = async (id = harness.staticData.webhookId as string) =>
	(await org.admin.get(`/orgs/${org.id}/webhooks/${id}`)).body;
export const deliveriesTo = async (id = harness.staticData.webhookId as string) =>
	(await org.admin.get(`/orgs/${org.id}/webhooks/${id}/deliveries`)).body as any[];
export const removedIn = (deliveries: Array<{ items: Array<{ json: any }> }>) =>
	deliveries.flatMap((d) => d.items.map((item) => item.json.data.user_id)).sort();
