import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { installDebianPackages } from '../../tooling/debian.ts';
import { ROOT } from '../../tooling/root.ts';
import { createOrg, removeTrainers, serverWithOrg, type TestOrg } from '../support/fixtures.ts';
import { decodeTraceExport } from '../support/otlp-protobuf.ts';
import { parseExposition, total, type Sample } from '../../tooling/prometheus-text.ts';
import { Receiver } from '../support/receiver.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { eventually } from '../../tooling/eventually.ts';
import { ROUTES } from '../../server/src/routes/index.ts';

const TOKEN = 'metrics-token-0123456789';

let server: TestServer;
let org: TestOrg;
let receiver: Receiver;
const promtool = '/usr/bin/promtool';
beforeAll(async () => {
	// Before any server starts: the install blocks this thread for minutes, and keep-alive
	// connections open across such a block are closed under the next request.
	if (!existsSync(promtool)) installDebianPackages(['prometheus'], "The metrics tests' promtool");
	receiver = await Receiver.start();
	receiver.reply = (delivery) =>
		delivery.path === '/failing'
			? { status: 500, body: 'down' }
			: delivery.path === '/gone'
				? { status: 410 }
				: { status: 204 };
	({ server, org } = await serverWithOrg({
		WEBHOOK_ALLOW_INSECURE_URLS: 'true',
		WEBHOOK_RETRY_SCHEDULE_S: '0.05',
		RATE_LIMIT_REQUESTS: '40',
		METRICS_ENABLED: 'true',
		METRICS_TOKEN: TOKEN,
	}));
}, 300_000);
afterAll(async () => {
	await server.stop();
	await receiver.stop();
});

const origin = () => new URL(server.url).origin;
const scrape = (authorization = `Bearer ${TOKEN}`) =>
	fetch(`${origin()}/metrics`, { headers: { authorization } });
async function samples(): Promise<Sample[]> {
	const response = await scrape();
	expect(response.status).toBe(200);
	expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
	expect(response.headers.get('cache-control')).toBe('no-store');
	const text = await response.text();
	expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(text));
	return parseExposition(text);
}

async function subscribe(path: string, types: string[]) {
	const response = await org.admin.post(`/orgs/${org.id}/webhooks`, {
		url: `${receiver.url}${path}`,
		event_types: types,
	});
	expect(response.status).toBe(201);
	return response.body as { id: string; secret: string };
}

describe('GET /metrics', () => {
	it('counts a known workload: 5 delivered, 1 given up, 1 endpoint disabled, 1 held with its delivery waiting, 1 request refused', async () => {
		await subscribe('/ok', ['member.removed']);
		await subscribe('/failing', ['lab.created']);
		await subscribe('/gone', ['lab.created']);
		const held = await subscribe('/held', ['lab.created']);
		await org.admin.patch(`/orgs/${org.id}/webhooks/${held.id}`, { held: true });

		await removeTrainers(org, 5);
		await org.admin.post('/labs', { name: 'Counted', tier: 'vm' });
		// A client without a valid key spends its address's budget (40) and is refused once.
		const stranger = async () =>
			(await fetch(`${server.url}/me`, { headers: { authorization: 'Bearer tlk_wrong' } })).status;
		const statuses = [];
		for (let i = 0; i < 41; i++) statuses.push(await stranger());
		expect(statuses.filter((status) => status === 401)).toHaveLength(40);
		expect(statuses.at(-1)).toBe(429);

		await eventually(
			async () => total(await samples(), 'traininglab_webhook_deliveries_given_up_total') === 1,
			'the failing delivery to be given up',
		);
		await server.webhooksIdle();
		const after = await samples();
		const attempts = (outcome: string, status_class: string) =>
			total(after, 'traininglab_webhook_attempts_total', { outcome, status_class });
		expect({
			delivered: attempts('delivered', '2xx'),
			failed: attempts('failed', '5xx'),
			gone: attempts('gone', '4xx'),
			allAttempts: total(after, 'traininglab_webhook_attempts_total'),
			givenUp: total(after, 'traininglab_webhook_deliveries_given_up_total'),
			delivered2xxLatencies: total(after, 'traininglab_webhook_event_to_delivered_seconds_count'),
			waiting: total(after, 'traininglab_webhook_deliveries_waiting'),
			active: total(after, 'traininglab_webhook_endpoints', { state: 'active' }),
			held: total(after, 'traininglab_webhook_endpoints', { state: 'held' }),
			disabled: total(after, 'traininglab_webhook_endpoints', { state: 'disabled' }),
			inFlight: total(after, 'traininglab_webhook_sends_in_flight'),
			rateLimited: total(after, 'traininglab_rate_limited_requests_total'),
			removals: total(after, 'traininglab_http_request_duration_seconds_count', {
				method: 'DELETE',
				route: '/api/v1/orgs/{orgId}/members/{userId}',
				status: '204',
			}),
			refusedBeforeRouting: total(after, 'traininglab_http_request_duration_seconds_count', {
				method: 'GET',
				route: '/api/v1/me',
				status: '429',
			}),
		}).toEqual({
			delivered: 5,
			failed: 2,
			gone: 1,
			allAttempts: 8,
			givenUp: 1,
			delivered2xxLatencies: 5,
			waiting: 1,
			active: 2,
			held: 1,
			disabled: 1,
			inFlight: 0,
			rateLimited: 1,
			removals: 5,
			refusedBeforeRouting: 1,
		});
		// Every delivered event reached its receiver within the histogram's range.
		expect(
			total(after, 'traininglab_webhook_event_to_delivered_seconds_bucket', { le: '+Inf' }),
		).toBe(5);
		const oldest = total(after, 'traininglab_webhook_oldest_waiting_delivery_age_seconds');
		expect(oldest).toBeGreaterThanOrEqual(0);
		expect(oldest).toBeLessThan(60);
	});

	// The server notes requests and counts them a few hundred at a time, and at each scrape.
	it('counts every request answered between two scrapes, however many', async () => {
		const healthz = (all: Sample[], name: string, labels: Record<string, string> = {}) =>
			total(all, name, { method: 'GET', route: '/healthz', status: '200', ...labels });
		const before = await samples();
		for (let batch = 0; batch < 60; batch++)
			await Promise.all(
				Array.from({ length: 10 }, async () => {
					const response = await fetch(`${origin()}/healthz`);
					expect(response.status).toBe(200);
				}),
			);
		const after = await samples();
		const counted = (name: string, labels?: Record<string, string>) =>
			healthz(after, name, labels) - healthz(before, name, labels);
		expect({
			count: counted('traininglab_http_request_duration_seconds_count'),
			inBuckets: counted('traininglab_http_request_duration_seconds_bucket', { le: '+Inf' }),
		}).toEqual({ count: 600, inBuckets: 600 });
		expect(counted('traininglab_http_request_duration_seconds_sum')).toBeGreaterThan(0);
	});

	it('names only route templates, methods and status codes in its labels: no key, secret, id, URL or query', async () => {
		const other = await createOrg(server);
		const hook = await subscribe('/labels', ['member.removed']);
		await other.admin.get(`/sessions?limit=5&title=secret-query-value`);
		await fetch(`${origin()}/no/such/path?token=abc`);
		const text = await (await scrape()).text();
		const templates = new Set([
			...ROUTES.map((route) => `/api/v1${route.path}`),
			'/healthz',
			'/metrics',
			'/console',
			'unmatched',
		]);
		// Ours; the process's own (prom-client's defaults) have the labels Node gives them.
		const labels = parseExposition(text)
			.filter((sample) => sample.name.startsWith('traininglab_'))
			.flatMap((sample) => Object.entries(sample.labels));
		for (const [label, value] of labels) {
			if (label === 'route') expect(templates).toContain(value);
			else if (label === 'method')
				expect(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'other']).toContain(value);
			else if (label === 'status') expect(value).toMatch(/^[1-5]\d\d$/);
			else expect(['outcome', 'status_class', 'state', 'le']).toContain(label);
		}
		for (const secret of [
			org.id,
			other.id,
			hook.id,
			hook.secret,
			'tlk_',
			'secret-query-value',
			'127.0.0.1',
			'token=',
		])
			expect(text).not.toContain(secret);
	});

	it('answers only its token: a wrong or missing one gets the 401 envelope and no metric', async () => {
		for (const authorization of ['', 'Bearer wrong', `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, TOKEN]) {
			const response = await scrape(authorization);
			expect(response.status).toBe(401);
			const body = await response.text();
			expect(JSON.parse(body).error.code).toBe('unauthorized');
			expect(body).not.toContain('traininglab_');
		}
		expect((await scrape()).status).toBe(200);
	});

	it('still answers after the outbox thread died, and counts what the new one sends', async () => {
		await server.killOutboxThread!();
		const sentBefore = receiver.received.length;
		await removeTrainers(org, 1);
		await server.webhooksIdle();
		const sentSince = receiver.received.length - sentBefore;
		expect(sentSince).toBeGreaterThan(0);
		// What the dead thread counted went with it (a counter reset, as after a restart).
		expect(
			total(await samples(), 'traininglab_webhook_attempts_total', { outcome: 'delivered' }),
		).toBe(sentSince);
	});
});

describe('GET /metrics when not enabled', () => {
	it('is not found, as by default', async () => {
		const plain = await startTestServer();
		try {
			const response = await fetch(`${new URL(plain.url).origin}/metrics`);
			expect(response.status).toBe(404);
			expect(await response.text()).not.toContain('traininglab_');
		} finally {
			await plain.stop();
		}
	});
});

describe('GET /metrics with traces exported', () => {
	it('counts the spans of every export the collector refused, and promtool finds nothing wrong', async () => {
		// A collector that reads each export, counts its spans and refuses it.
		let refusedSpans = 0;
		const collector = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (chunk: Buffer) => chunks.push(chunk));
			req.on('end', () => {
				for (const { scopeSpans } of decodeTraceExport(Buffer.concat(chunks)).resourceSpans)
					for (const { spans } of scopeSpans) refusedSpans += spans.length;
				res.writeHead(503).end();
			});
		});
		await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
		const traced = await startTestServer({
			METRICS_ENABLED: 'true',
			METRICS_TOKEN: TOKEN,
			OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
		});
		try {
			const at = new URL(traced.url).origin;
			for (let i = 0; i < 10; i++) expect((await fetch(`${at}/healthz`)).status).toBe(200);
			const read = async () => {
				const response = await fetch(`${at}/metrics`, {
					headers: { authorization: `Bearer ${TOKEN}` },
				});
				return response.text();
			};
			// Each scrape is a span too, refused a second later: read until both sides agree.
			const text = await eventually(
				async () => {
					const text = await read();
					const dropped = (reason: string) =>
						total(parseExposition(text), 'traininglab_trace_spans_dropped_total', { reason });
					return (
						refusedSpans >= 10 &&
						dropped('export_failed') === refusedSpans &&
						dropped('ring_full') === 0 &&
						text
					);
				},
				'the refused spans to be counted',
				{ intervalMs: 100 },
			);
			const checked = spawnSync(promtool, ['check', 'metrics'], { input: text, encoding: 'utf8' });
			expect({ status: checked.status, problems: `${checked.stdout}${checked.stderr}` }).toEqual({
				status: 0,
				problems: '',
			});
		} finally {
			await traced.stop();
			collector.close();
		}
	});
});

describe("Prometheus' own checks", () => {
	it('promtool check metrics finds nothing wrong in what /metrics exposes', async () => {
		const text = await (await scrape()).text();
		const checked = spawnSync(promtool, ['check', 'metrics'], { input: text, encoding: 'utf8' });
		expect({ status: checked.status, problems: `${checked.stdout}${checked.stderr}` }).toEqual({
			status: 0,
			problems: '',
		});
	});

	it('promtool check rules accepts the alerting rules of docs/observability.md, over metrics the server has', async () => {
		const file = join(ROOT, 'examples', 'prometheus', 'traininglab-alerts.yml');
		const checked = spawnSync(promtool, ['check', 'rules', file], { encoding: 'utf8' });
		expect(checked.status).toBe(0);
		expect(checked.stdout).toMatch(/SUCCESS: 6 rules found/);
		const names = new Set(parseExposition(await (await scrape()).text()).map((s) => s.name));
		for (const used of readFileSync(file, 'utf8').matchAll(
			/\b(traininglab_\w+?)(_bucket|_count)?\b/g,
		))
			expect(names).toContain(`${used[1]}${used[2] ?? ''}`);
	});
});
