import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../../tooling/eventually.ts';
import { ROOT } from '../../tooling/root.ts';
import { removeTrainers, serverWithOrg, type TestOrg } from '../support/fixtures.ts';
import { ensurePrometheus, Prometheus } from '../support/prometheus.ts';
import { Receiver } from '../support/receiver.ts';
import type { TestServer } from '../support/test-server.ts';

// A real Prometheus (Debian's) scrapes the real server every second, with the example alerting
// rules loaded, while a known workload runs: what PromQL reads back is what happened.
const TOKEN = 'prometheus-scrape-token-0123';
const RULES = join(ROOT, 'examples', 'prometheus', 'traininglab-alerts.yml');

let server: TestServer;
let org: TestOrg;
let receiver: Receiver;
let prometheus: Prometheus;
beforeAll(async () => {
	// Before any server starts: an install blocks this thread (metrics.test.ts says why).
	ensurePrometheus();
	receiver = await Receiver.start();
	receiver.reply = (delivery) =>
		delivery.path === '/failing' ? { status: 503, body: 'down' } : { status: 204 };
	({ server, org } = await serverWithOrg({
		WEBHOOK_ALLOW_INSECURE_URLS: 'true',
		// One retry, at once: a failing delivery gives up after two attempts.
		WEBHOOK_RETRY_SCHEDULE_S: '0.05',
		METRICS_ENABLED: 'true',
		METRICS_TOKEN: TOKEN,
	}));
	prometheus = await Prometheus.start(server.url, TOKEN, [RULES]);
}, 300_000);
afterAll(async () => {
	await prometheus?.stop();
	await server?.stop();
	await receiver?.stop();
});

async function subscribe(path: string, types: string[]): Promise<string> {
	const response = await org.admin.post(`/orgs/${org.id}/webhooks`, {
		url: `${receiver.url}${path}`,
		event_types: types,
	});
	expect(response.status).toBe(201);
	return response.body.id;
}

describe('a real Prometheus scraping the server', () => {
	it('reads back a known workload: 50 delivered, 10 failed, 5 given up, 5 waiting on 1 held endpoint', async () => {
		await subscribe('/ok', ['member.removed']);
		const failing = await subscribe('/failing', ['lab.created']);
		const held = await subscribe('/held', ['lab.created']);
		await org.admin.patch(`/orgs/${org.id}/webhooks/${held}`, { held: true });

		await removeTrainers(org, 50);
		for (let n = 0; n < 5; n++) await org.admin.post('/labs', { name: `Failing ${n}`, tier: 'vm' });
		await eventually(async () => {
			const deliveries = (await org.admin.get(`/orgs/${org.id}/webhooks/${failing}/deliveries`))
				.body as Array<{ status: string }>;
			return deliveries.length === 5 && deliveries.every((d) => d.status === 'exhausted');
		}, 'the failing deliveries to be given up');
		await server.webhooksIdle();
		await prometheus.scrapedAfter(Date.now());

		const read = async (expression: string) => prometheus.value(expression);
		expect({
			delivered: await read('sum(traininglab_webhook_attempts_total{outcome="delivered"})'),
			failed5xx: await read(
				'sum(traininglab_webhook_attempts_total{outcome="failed", status_class="5xx"})',
			),
			givenUp: await read('traininglab_webhook_deliveries_given_up_total'),
			latencies: await read('traininglab_webhook_event_to_delivered_seconds_count'),
			waiting: await read('traininglab_webhook_deliveries_waiting'),
			held: await read('traininglab_webhook_endpoints{state="held"}'),
			active: await read('traininglab_webhook_endpoints{state="active"}'),
			inFlight: await read('traininglab_webhook_sends_in_flight'),
			removals: await read(
				'sum(traininglab_http_request_duration_seconds_count{method="DELETE", route="/api/v1/orgs/{orgId}/members/{userId}", status="204"})',
			),
		}).toEqual({
			delivered: 50,
			failed5xx: 10,
			givenUp: 5,
			latencies: 50,
			waiting: 5,
			held: 1,
			active: 2,
			inFlight: 0,
			removals: 50,
		});
	});

	it('evaluates every PromQL query of docs/observability.md; the delivered share is a number', async () => {
		const doc = readFileSync(join(ROOT, 'docs', 'observability.md'), 'utf8');
		const table = doc.slice(
			doc.indexOf('### Questions and their PromQL'),
			doc.indexOf('### Alerting rules'),
		);
		const queries = table
			.split('\n')
			.filter((line) => line.startsWith('| ') && !line.startsWith('| question'))
			.flatMap((line) => [...line.split('|')[2].matchAll(/`([^`]+)`/g)].map((match) => match[1]));
		expect(queries.length).toBeGreaterThanOrEqual(7);
		// Prometheus refuses a query it cannot parse or evaluate (query throws).
		for (const query of queries) await prometheus.query(query);
		const share = await prometheus.value(queries.find((query) => query.includes('"delivered"'))!);
		expect(share).toBeGreaterThan(0.8); // 50 of 60 attempts
		expect(share).toBeLessThanOrEqual(1);
	});

	it('fires the alert for deliveries given up, and no other of the example rules', async () => {
		const firing = async () =>
			(await prometheus.alerts()).filter((alert) => alert.state === 'firing');
		await eventually(async () => (await firing()).length > 0, 'an alert to fire', {
			timeoutMs: 30_000,
		});
		// Rules with a `for` would only be pending: none of the others may even be pending.
		expect(
			(await prometheus.alerts()).map((alert) => [alert.labels.alertname, alert.state]),
		).toEqual([['TrainingLabDeliveriesGivenUp', 'firing']]);
	});
});
