import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getPriority } from 'node:os';
import { createContextKey, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { loadConfig } from '../../server/src/config.ts';
import { epochMs } from '../../server/src/observability/recorded-span.ts';
import { Tracing } from '../../server/src/observability/tracing.ts';
import { serverWithOrg, type TestOrg } from '../support/fixtures.ts';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.ts';
import { Receiver } from '../support/receiver.ts';
import type { TestServer } from '../support/test-server.ts';
import { eventually } from '../../tooling/eventually.ts';

const INTERNAL = 1;
const SERVER = 2;
const CLIENT = 3;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

let collector: OtlpReceiver;
let receiver: Receiver;
beforeAll(async () => {
	collector = await OtlpReceiver.start();
	receiver = await Receiver.start();
});
afterAll(async () => {
	await receiver.stop();
	await collector.stop();
});

async function subscribed(org: TestOrg, path: string) {
	const response = await org.admin.post(`/orgs/${org.id}/webhooks`, {
		url: `${receiver.url}${path}`,
		event_types: ['member.removed'],
	});
	expect(response.status).toBe(201);
}

/** Adds a trainer and removes them, the removal sent with `headers`. */
async function removeOne(server: TestServer, org: TestOrg, headers: Record<string, string>) {
	const member = await org.admin.post(`/orgs/${org.id}/members`, {
		email: `traced-${randomBytes(4).toString('hex')}@x.test`,
		name: 'Traced',
		role: 'trainer',
	});
	const removed = await fetch(`${server.url}/orgs/${org.id}/members/${member.body.user_id}`, {
		method: 'DELETE',
		headers: { authorization: `Bearer ${org.admin.key}`, ...headers },
	});
	expect(removed.status).toBe(204);
}

describe('traces, exported over OTLP', () => {
	let server: TestServer;
	let org: TestOrg;
	beforeAll(async () => {
		({ server, org } = await serverWithOrg({
			WEBHOOK_ALLOW_INSECURE_URLS: 'true',
			OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
		}));
		await subscribed(org, '/traced');
	});
	afterAll(() => server.stop());

	it("one trace from the caller's request through the event's recording to each delivery attempt, which sends it on", async () => {
		const traceId = randomBytes(16).toString('hex');
		const callerSpan = randomBytes(8).toString('hex');
		await removeOne(server, org, {
			traceparent: `00-${traceId}-${callerSpan}-01`,
			tracestate: 'vendor=kept',
		});
		await receiver.waitFor(() => receiver.at('/traced').length === 1);
		const [delivery] = receiver.at('/traced');
		const [, sentTrace, sentSpan] = TRACEPARENT.exec(String(delivery.headers.traceparent))!;
		expect(sentTrace).toBe(traceId);
		expect(delivery.headers.tracestate).toBe('vendor=kept');

		const spans = await eventually(
			() => {
				const names = collector.trace(traceId).map((span) => span.name);
				const all = [
					'DELETE /api/v1/orgs/{orgId}/members/{userId}',
					'event member.removed',
					'deliver member.removed',
				];
				return all.every((name) => names.includes(name)) && collector.trace(traceId);
			},
			'the spans of the trace at the collector',
			{
				timeoutMs: 10_000,
				explain: () =>
					JSON.stringify(collector.spans.map((s) => [s.name, s.kind, s.traceId === traceId])),
			},
		);
		const request = spans.find((span) => span.kind === SERVER)!;
		const event = spans.find((span) => span.name === 'event member.removed')!;
		const attempt = spans.find((span) => span.name === 'deliver member.removed')!;
		expect(request).toMatchObject({
			name: 'DELETE /api/v1/orgs/{orgId}/members/{userId}',
			parentSpanId: callerSpan,
			service: 'traininglab-api',
			attributes: {
				'http.route': '/api/v1/orgs/{orgId}/members/{userId}',
				'http.response.status_code': 204,
			},
		});
		expect(event).toMatchObject({
			kind: INTERNAL,
			parentSpanId: request.spanId,
			attributes: {
				'traininglab.event.id': JSON.parse(delivery.body).id,
				'traininglab.event.type': 'member.removed',
			},
		});
		expect(attempt).toMatchObject({
			kind: CLIENT,
			parentSpanId: event.spanId,
			// The receiver continues the attempt's span.
			spanId: sentSpan,
			attributes: {
				'traininglab.outcome': 'delivered',
				'http.response.status_code': 204,
				'traininglab.attempt': 1,
				'server.address': '127.0.0.1',
			},
		});
		// No path, query or secret of the endpoint in any span.
		expect(JSON.stringify(spans)).not.toContain('/traced');
	});

	it("each read under no caller's trace is a root span of its own, named by its route, with its status", async () => {
		// More than a thread writes at once (64).
		const reads = 70;
		for (let index = 0; index < reads; index++)
			expect((await org.admin.get(`/orgs/${org.id}/webhooks`)).status).toBe(200);
		const missing = await org.admin.get(`/orgs/${org.id}/webhooks/${randomUUID()}`);
		expect(missing.status).toBe(404);
		const named = (name: string) => collector.spans.filter((span) => span.name === name);
		const spans = await eventually(
			() => {
				const listed = named('GET /api/v1/orgs/{orgId}/webhooks');
				const unknown = named('GET /api/v1/orgs/{orgId}/webhooks/{webhookId}');
				return listed.length === reads && unknown.length === 1 && [...listed, ...unknown];
			},
			'the reads at the collector',
			{ timeoutMs: 10_000 },
		);
		for (const span of spans)
			expect(span).toMatchObject({
				kind: SERVER,
				parentSpanId: undefined,
				service: 'traininglab-api',
				attributes: {
					'http.request.method': 'GET',
					'http.response.status_code': span === spans[reads] ? 404 : 200,
				},
			});
		expect(spans[reads].attributes['http.route']).toBe('/api/v1/orgs/{orgId}/webhooks/{webhookId}');
		expect(new Set(spans.map((span) => span.traceId)).size).toBe(reads + 1);
		expect(new Set(spans.map((span) => span.spanId)).size).toBe(reads + 1);
	});

	it('an outbox thread started again (after it died) exports the spans of its attempts as the first did', async () => {
		await server.killOutboxThread!();
		const traceId = randomBytes(16).toString('hex');
		await removeOne(server, org, {
			traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
		});
		const attempt = await eventually(
			() => collector.trace(traceId).find((span) => span.name === 'deliver member.removed'),
			"the new thread's attempt at the collector",
		);
		expect(attempt.attributes['traininglab.outcome']).toBe('delivered');
	});

	it("a span export thread started again (after it died) exports both threads' spans, those written before it died among them", async () => {
		const traced = () => {
			const traceId = randomBytes(16).toString('hex');
			return { traceId, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` };
		};
		// Before: its spans wait in the rings (read once a second) when the thread is ended.
		const before = traced();
		await removeOne(server, org, { traceparent: before.traceparent });
		await server.killSpanExportThread!();
		// The one started again at once dies too: the next waits a second.
		await server.killSpanExportThread!();
		const after = traced();
		await removeOne(server, org, { traceparent: after.traceparent });
		// Each trace: the request thread's span and the outbox thread's, each from its own ring.
		await eventually(
			() =>
				[before, after].every(({ traceId }) => {
					const names = collector.trace(traceId).map((span) => span.name);
					return (
						names.includes('DELETE /api/v1/orgs/{orgId}/members/{userId}') &&
						names.includes('deliver member.removed')
					);
				}),
			"both traces' spans at the collector",
		);
		// (The second was ended as it started: its exit code can be 0.)
		expect(server.logs.filter((line) => line.startsWith('the span export thread stopped'))).toEqual(
			[
				expect.stringMatching(/; starting it again$/),
				expect.stringMatching(/; starting it again in 1 s$/),
			],
		);
	});

	it('each retry is a span of the same trace, with its own id sent on', async () => {
		let answers = 0;
		receiver.reply = (d) =>
			d.path === '/flaky' ? (answers++ === 0 ? { status: 500 } : { status: 204 }) : { status: 204 };
		const retrying = await serverWithOrg({
			WEBHOOK_ALLOW_INSECURE_URLS: 'true',
			WEBHOOK_RETRY_SCHEDULE_S: '0.05',
			OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
		});
		try {
			await subscribed(retrying.org, '/flaky');
			const traceId = randomBytes(16).toString('hex');
			await removeOne(retrying.server, retrying.org, {
				traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
			});
			await receiver.waitFor(() => receiver.at('/flaky').length === 2);
			const sent = receiver
				.at('/flaky')
				.map((d) => TRACEPARENT.exec(String(d.headers.traceparent))!);
			expect(sent.map(([, trace]) => trace)).toEqual([traceId, traceId]);
			expect(sent[0][2]).not.toBe(sent[1][2]);
			const attempts = await eventually(() => {
				const found = collector.trace(traceId).filter((s) => s.name === 'deliver member.removed');
				return found.length === 2 && found;
			}, 'both attempts at the collector');
			expect(attempts.map((span) => span.attributes['traininglab.outcome']).sort()).toEqual([
				'delivered',
				'failed',
			]);
			expect(new Set(attempts.map((span) => span.parentSpanId)).size).toBe(1);
		} finally {
			receiver.reply = () => ({ status: 204 });
			await retrying.server.stop();
		}
	});
});

/** The span a server configured by `env` exports for one `GET /me` (in a trace of its caller's). */
async function spanOfOneRequest(env: Record<string, string>): Promise<ReceivedSpan> {
	const { server, org } = await serverWithOrg(env);
	try {
		const traceId = randomBytes(16).toString('hex');
		const answered = await fetch(`${server.url}/me`, {
			headers: {
				authorization: `Bearer ${org.admin.key}`,
				traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
			},
		});
		expect(answered.status).toBe(200);
		const [span] = await eventually(() => {
			const found = collector.trace(traceId);
			return found.length > 0 && found;
		}, "the request's span at the collector");
		return span;
	} finally {
		await server.stop();
	}
}

describe('a collector that wants a key, and a service of its own name', () => {
	it('sends OTEL_EXPORTER_OTLP_HEADERS with every export, under OTEL_SERVICE_NAME', async () => {
		const span = await spanOfOneRequest({
			OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
			OTEL_EXPORTER_OTLP_HEADERS: 'Authorization=Bearer%20collector-key-1 , x-scope=lab%2Cstaging',
			OTEL_SERVICE_NAME: 'traininglab-staging',
		});
		expect(span.service).toBe('traininglab-staging');
		expect(span.exportedWith).toMatchObject({
			authorization: 'Bearer collector-key-1',
			'x-scope': 'lab,staging',
			'content-type': 'application/x-protobuf',
		});
	});

	it('refuses a headers value it cannot read without showing any of it, and any protocol but http/protobuf', () => {
		const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url };
		for (const headers of [
			'authorization',
			'=secret-1',
			'x-key=bad%zzsecret-1',
			'x key=secret-1',
			'x-key=a%0Asecret-1',
		]) {
			let message = '';
			try {
				loadConfig({ ...endpoint, OTEL_EXPORTER_OTLP_HEADERS: headers });
			} catch (error) {
				message = (error as Error).message;
			}
			expect(message).toMatch(
				/^Invalid configuration: OTEL_EXPORTER_OTLP_HEADERS: must be name=value pairs/,
			);
			expect(message).not.toContain('secret-1');
		}
		expect(() => loadConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
			'OTEL_EXPORTER_OTLP_PROTOCOL: only http/protobuf is supported (not grpc or http/json)',
		);
		expect(() => loadConfig({ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' })).toThrow(
			'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: only http/protobuf is supported (not grpc or http/json)',
		);
		expect(loadConfig({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }).otlp).toEqual({
			url: `${collector.url}/v1/traces`,
			headers: {},
			resource: { 'service.name': 'traininglab-api' },
		});
		expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/otlp//` }).otlp?.url).toBe(
			`${collector.url}/otlp/v1/traces`,
		);
		expect(loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'x-key=1' }).otlp).toBeUndefined();
	});
});

describe("OpenTelemetry's traces-only variables and resource attributes", () => {
	it('posts to OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, with its headers over the general ones, from the resource described', async () => {
		const span = await spanOfOneRequest({
			OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
			OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/otlp/traces`,
			OTEL_EXPORTER_OTLP_HEADERS: 'x-key=general-1,x-scope=all',
			OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'X-Key=traces-1',
			OTEL_RESOURCE_ATTRIBUTES:
				'deployment.environment.name=staging, service.name=lab-api ,team=lab%20ops%2C%20west',
		});
		expect(span.exportedTo).toBe('/otlp/traces');
		expect(span.exportedWith).toMatchObject({ 'x-key': 'traces-1', 'x-scope': 'all' });
		expect(span.resource).toEqual({
			'deployment.environment.name': 'staging',
			'service.name': 'lab-api',
			team: 'lab ops, west',
		});
	});

	it('names the service by OTEL_SERVICE_NAME over the attributes, and refuses attributes it cannot read', () => {
		const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url };
		expect(
			loadConfig({
				...endpoint,
				OTEL_SERVICE_NAME: 'lab-api-eu',
				OTEL_RESOURCE_ATTRIBUTES: 'service.name=lab-api,region=eu',
			}).otlp?.resource,
		).toEqual({ 'service.name': 'lab-api-eu', region: 'eu' });
		for (const attributes of ['region', '=eu', 'region=%zz'])
			expect(() => loadConfig({ ...endpoint, OTEL_RESOURCE_ATTRIBUTES: attributes })).toThrow(
				'OTEL_RESOURCE_ATTRIBUTES: must be key=value pairs separated by commas, each percent-encoded',
			);
	});
});

/** The nice level of each thread of this process (Linux), by thread id. */
function threadNiceLevels(): Map<string, number> {
	const levels = new Map<string, number>();
	for (const thread of readdirSync('/proc/self/task'))
		try {
			const stat = readFileSync(`/proc/self/task/${thread}/stat`, 'utf8');
			// After the name in brackets: state is field 3, nice field 19.
			levels.set(thread, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
		} catch {
			// A thread that ended while the list was read.
		}
	return levels;
}

/** This process's nice level: a thread at 19 already cannot be lowered. */
const processLevel = getPriority();
const lowerable = process.platform === 'linux' && processLevel < 19;

(lowerable ? describe : describe.skip)('the span export thread', () => {
	it('runs 10 nice levels below the threads that answer requests and deliver, and no other does', async () => {
		const exportLevel = Math.min(19, processLevel + 10);
		const lowered = () => [...threadNiceLevels()].filter(([, nice]) => nice === exportLevel);
		const before = lowered().map(([thread]) => thread);
		const started = await serverWithOrg({
			WEBHOOK_ALLOW_INSECURE_URLS: 'true',
			OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
		});
		try {
			// The thread lowers itself once started, which the server does not wait for.
			const [exportThread] = await eventually(() => {
				const added = lowered().filter(([thread]) => !before.includes(thread));
				return added.length > 0 && added;
			}, 'the span export thread to lower its priority');
			await subscribed(started.org, '/priority');
			await removeOne(started.server, started.org, {});
			await receiver.waitFor(() => receiver.at('/priority').length === 1);
			const levels = threadNiceLevels();
			expect(levels.get(exportThread[0])).toBe(exportLevel);
			// The outbox thread has delivered, at the process's level, as this one answered.
			expect(lowered().filter(([thread]) => !before.includes(thread))).toHaveLength(1);
			expect(levels.get(String(process.pid))).toBe(processLevel);
		} finally {
			await started.server.stop();
		}
	});
});

describe('traces without a collector', () => {
	it("every attempt continues the caller's trace, as a span of its own", async () => {
		const { server, org } = await serverWithOrg({ WEBHOOK_ALLOW_INSECURE_URLS: 'true' });
		try {
			await subscribed(org, '/continued');
			const traceId = randomBytes(16).toString('hex');
			const callerSpan = randomBytes(8).toString('hex');
			await removeOne(server, org, {
				traceparent: `00-${traceId}-${callerSpan}-01`,
				tracestate: 'caller=1',
			});
			await receiver.waitFor(() => receiver.at('/continued').length === 1);
			const [delivery] = receiver.at('/continued');
			const [, sentTrace, sentSpan] = TRACEPARENT.exec(String(delivery.headers.traceparent))!;
			expect(sentTrace).toBe(traceId);
			expect(sentSpan).not.toBe(callerSpan);
			expect(delivery.headers.tracestate).toBe('caller=1');
		} finally {
			await server.stop();
		}
	});

	it('every attempt still carries a traceparent, of a new trace when the caller sent none', async () => {
		const { server, org } = await serverWithOrg({ WEBHOOK_ALLOW_INSECURE_URLS: 'true' });
		try {
			await subscribed(org, '/untraced');
			await removeOne(server, org, {});
			await removeOne(server, org, { traceparent: 'not a traceparent' });
			await receiver.waitFor(() => receiver.at('/untraced').length === 2);
			const traces = receiver
				.at('/untraced')
				.map((d) => TRACEPARENT.exec(String(d.headers.traceparent))?.[1]);
			expect(traces.every((trace) => trace !== undefined)).toBe(true);
			expect(new Set(traces).size).toBe(2);
		} finally {
			await server.stop();
		}
	});

	it('a collector that refuses or never answers costs no request anything: each is answered as usual', async () => {
		const hanging = createServer(() => {}); // reads requests and never answers
		await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
		const refused = `http://127.0.0.1:9`;
		try {
			for (const endpoint of [
				refused,
				`http://127.0.0.1:${(hanging.address() as AddressInfo).port}`,
			]) {
				const { server, org } = await serverWithOrg({
					WEBHOOK_ALLOW_INSECURE_URLS: 'true',
					OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
				});
				try {
					await subscribed(org, '/collector-down');
					const before = receiver.at('/collector-down').length;
					for (let i = 0; i < 20; i++) await removeOne(server, org, {});
					await receiver.waitFor(() => receiver.at('/collector-down').length === before + 20);
					expect(server.logs.join('\n')).not.toMatch(/failed|error/i);
				} finally {
					await server.stop();
				}
			}
		} finally {
			hanging.closeAllConnections();
			hanging.close();
		}
	}, 60_000);
});

describe("a request's context", () => {
	it("answers OpenTelemetry's API as OpenTelemetry's own contexts do", () => {
		const tracing = new Tracing();
		const key = createContextKey('kept');
		const parent = ROOT_CONTEXT.setValue(key, 'from the parent');
		const span = tracing.startRequestSpan('DELETE', parent, epochMs());
		const context = tracing.withSpan(parent, span);
		expect(trace.getSpan(context)).toBe(span);
		expect(context.getValue(key)).toBe('from the parent');

		const child = tracing.run(context, () => tracing.startEventSpan('an id', 'member.removed'));
		expect(child.spanContext().traceId).toBe(span.spanContext().traceId);
		expect(child.spanContext().parentSpanId).toBe(span.spanContext().spanId);
		const nested = trace.setSpan(context, child);
		expect(trace.getSpan(nested)).toBe(child);
		expect(trace.getSpan(context)).toBe(span);

		expect(trace.getSpan(trace.deleteSpan(nested))).toBeUndefined();
		expect(nested.deleteValue(key).getValue(key)).toBeUndefined();
		expect(nested.getValue(key)).toBe('from the parent');
		expect(tracing.run(nested, () => trace.getSpan(tracing.active()))).toBe(child);
		expect(trace.getSpan(tracing.active())).toBeUndefined();
	});
});
