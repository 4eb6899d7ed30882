import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
	createTraceState,
	isSpanContextValid,
	SpanStatusCode,
	TraceFlags,
} from '@opentelemetry/api';
import fc from 'fast-check';
import { OtlpExporter } from '../../server/src/observability/otlp-exporter.ts';
import {
	AttemptSpan,
	epochMs,
	EventSpan,
	RequestSpan,
	type SpanSink,
} from '../../server/src/observability/recorded-span.ts';
import { sendOverHttp } from '../../server/src/observability/span-export.ts';
import { SpanIds } from '../../server/src/observability/span-ids.ts';
import { SpanRecorder } from '../../server/src/observability/span-records.ts';
import { DEFINED_BYTES, RING_BYTES, spanRing } from '../../server/src/observability/span-ring.ts';
import {
	decodeTraceExport,
	type DecodedExport,
	type DecodedSpan,
} from '../support/otlp-protobuf.ts';

// A span is written in OTLP's protobuf, by hand, into its thread's ring as it ends, and the
// exporter puts the rings' spans together into exports; protobufjs, reading an export as a
// collector would, must find every field of every span, whatever its strings hold.

/** A collector on a free port that keeps each export, decoded. */
async function startCollector() {
	const exports: DecodedExport[] = [];
	const contentTypes = new Set<string | undefined>();
	const collector = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			contentTypes.add(req.headers['content-type']);
			exports.push(decodeTraceExport(Buffer.concat(chunks)));
			res.end();
		});
	});
	await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
		exports,
		contentTypes,
		/** Every span exported, in the order they arrived. */
		spans: (): DecodedSpan[] =>
			exports.flatMap((body) => body.resourceSpans[0].scopeSpans[0].spans),
		close: () => collector.close(),
	};
}

/** A ring smaller than a server's, larger than a batch: the tests that fill one fill this. */
const SMALL_RING = 4 * 1024 * 1024;

/** OTLP's nanoseconds for a span time in milliseconds, to the microsecond. */
const nanos = (ms: number) => String(BigInt(Math.round(ms * 1000)) * 1000n);

/**
 * An exporter to the collector at `origin`, and the recorder of a thread whose ring (of
 * `ringBytes`) it reads.
 */
function exporting(
	origin: string,
	serviceName = 'api',
	ringBytes = RING_BYTES,
	definedBytes = DEFINED_BYTES,
) {
	const exporter = newExporter(origin, serviceName);
	const ring = spanRing(ringBytes, definedBytes);
	exporter.read(ring);
	return { exporter, recorder: new SpanRecorder(ring) };
}

function newExporter(origin: string, serviceName = 'api') {
	return new OtlpExporter(sendOverHttp({ url: `${origin}/v1/traces`, headers: {} }), {
		resource: { 'service.name': serviceName },
	});
}

/** A request answered, as its span is recorded: a row, or a span made for it. */
interface Answered {
	method: string;
	route: string | undefined;
	statusCode: number;
	start: number;
	end: number;
}

/** What the span of a request answered says, as a collector reads it (but its ids). */
function requestSpanSays({ method, route, statusCode, start, end }: Answered) {
	return {
		name: route ? `${method} ${route}` : method,
		kind: 2,
		parentSpanId: undefined,
		startTimeUnixNano: nanos(start),
		endTimeUnixNano: nanos(end),
		attributes: [
			{ key: 'http.request.method', value: { stringValue: method } },
			...(route ? [{ key: 'http.route', value: { stringValue: route } }] : []),
			{ key: 'http.response.status_code', value: { intValue: String(statusCode) } },
		],
		status: statusCode >= 500 ? { code: SpanStatusCode.ERROR } : undefined,
	};
}

function saysOf({
	name,
	kind,
	parentSpanId,
	startTimeUnixNano,
	endTimeUnixNano,
	attributes,
	status,
}: DecodedSpan) {
	return { name, kind, parentSpanId, startTimeUnixNano, endTimeUnixNano, attributes, status };
}

/** Records each request answered as a row. */
function recordRows(recorder: SpanRecorder, answered: Answered[]) {
	for (const { method, route, statusCode, start, end } of answered)
		recorder.requestEnded(method, route, statusCode, start, end);
}

/** Exports what `recorder` has ended, and answers the spans the collector got, by their start. */
async function exportedSpans(
	recorder: SpanRecorder,
	exporter: OtlpExporter,
	collector: Awaited<ReturnType<typeof startCollector>>,
) {
	recorder.flush();
	await exporter.stop();
	collector.close();
	return byStart(collector.spans());
}

/** The spans the collector has, by their start (each test's starts are all different). */
const byStart = (spans: DecodedSpan[]) =>
	[...spans].sort((a, b) => (BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1));

/** Each span has ids of its own, valid, in a trace of its own. */
function expectRootIdsOfTheirOwn(spans: DecodedSpan[]) {
	for (const { traceId, spanId } of spans)
		expect(isSpanContextValid({ traceId, spanId, traceFlags: TraceFlags.SAMPLED })).toBe(true);
	expect(new Set(spans.map((span) => span.traceId)).size).toBe(spans.length);
	expect(new Set(spans.map((span) => span.spanId)).size).toBe(spans.length);
}

/** The span of the `index`th event (its ids made from `index`), whose id is `eventId`. */
function eventSpan(
	recorder: SpanSink,
	index: number,
	eventId = `event ${index}`,
	eventType = 'member.removed',
): EventSpan {
	const id = (index + 1).toString(16).padStart(16, '0');
	return new EventSpan(
		eventId,
		eventType,
		SpanIds.of({ traceId: id.repeat(2), spanId: id, traceFlags: TraceFlags.SAMPLED }),
		recorder,
	);
}

/** The event id an event's span was exported with. */
const eventIdOf = (span: DecodedSpan) =>
	span.attributes.find(({ key }) => key === 'traininglab.event.id')?.value.stringValue;

it("exports an event's span, with its parent and tracestate, as OTLP protobuf that decodes back to it", async () => {
	const collector = await startCollector();
	const { exporter, recorder } = exporting(collector.url, 'service "ünïcode"');
	const span = new EventSpan(
		'0193a6f2-5b1e-7c3d-8e4f-a1b2c3d4e5f6',
		'ünïcode "type"\n',
		SpanIds.of({
			traceId: '0af7651916cd43dd8448eb211c80319c',
			spanId: 'B7AD6B7169203331',
			parentSpanId: '00f067aa0ba902b7',
			traceFlags: TraceFlags.SAMPLED,
			traceState: createTraceState('vendor=a:b,other=c'),
		}),
		recorder,
	);
	span.end();
	const root = eventSpan(recorder, 0);
	root.end();
	recorder.flush();
	await exporter.stop();
	collector.close();

	expect(collector.contentTypes).toEqual(new Set(['application/x-protobuf']));
	expect(collector.exports).toHaveLength(1);
	const [resourceSpans] = collector.exports[0].resourceSpans;
	expect(resourceSpans.resource.attributes).toEqual([
		{ key: 'service.name', value: { stringValue: 'service "ünïcode"' } },
	]);
	expect(resourceSpans.scopeSpans[0].scope).toEqual({ name: 'service "ünïcode"' });
	expect(collector.spans()).toEqual([
		{
			traceId: '0af7651916cd43dd8448eb211c80319c',
			spanId: 'b7ad6b7169203331',
			parentSpanId: '00f067aa0ba902b7',
			traceState: 'vendor=a:b,other=c',
			name: 'event ünïcode "type"\n',
			kind: 1,
			startTimeUnixNano: nanos(span.startTime),
			endTimeUnixNano: nanos(span.endTime),
			attributes: [
				{
					key: 'traininglab.event.id',
					value: { stringValue: '0193a6f2-5b1e-7c3d-8e4f-a1b2c3d4e5f6' },
				},
				{ key: 'traininglab.event.type', value: { stringValue: 'ünïcode "type"\n' } },
			],
		},
		{
			traceId: '0000000000000001'.repeat(2),
			spanId: '0000000000000001',
			name: 'event member.removed',
			kind: 1,
			startTimeUnixNano: nanos(root.startTime),
			endTimeUnixNano: nanos(root.endTime),
			attributes: [
				{ key: 'traininglab.event.id', value: { stringValue: 'event 0' } },
				{ key: 'traininglab.event.type', value: { stringValue: 'member.removed' } },
			],
		},
	]);
	expect(nanos(span.startTime)).toMatch(/^\d{19}$/);
});

it("exports a request's span named by its method and route, with its status, caller and tracestate", async () => {
	const collector = await startCollector();
	const { exporter, recorder } = exporting(collector.url);
	const failed = new RequestSpan(
		'POST',
		SpanIds.of({
			traceId: '0af7651916cd43dd8448eb211c80319c',
			spanId: 'b7ad6b7169203331',
			parentSpanId: '00f067aa0ba902b7',
			traceFlags: TraceFlags.SAMPLED,
			traceState: createTraceState('vendor=kept'),
		}),
		recorder,
	);
	failed.route = '/api/v1/orgs/{orgId}/sessions';
	failed.statusCode = 503;
	failed.end();
	const unrouted = new RequestSpan(
		'GET',
		SpanIds.of({ traceId: '1'.repeat(32), spanId: '2'.repeat(16), traceFlags: TraceFlags.SAMPLED }),
		recorder,
	);
	unrouted.statusCode = 404;
	unrouted.end();
	// Ended once: a second end records nothing more.
	unrouted.end();
	recorder.flush();
	await exporter.stop();
	collector.close();

	expect(collector.spans()).toEqual([
		{
			traceId: '0af7651916cd43dd8448eb211c80319c',
			spanId: 'b7ad6b7169203331',
			parentSpanId: '00f067aa0ba902b7',
			traceState: 'vendor=kept',
			name: 'POST /api/v1/orgs/{orgId}/sessions',
			kind: 2,
			startTimeUnixNano: nanos(failed.startTime),
			endTimeUnixNano: nanos(failed.endTime),
			attributes: [
				{ key: 'http.request.method', value: { stringValue: 'POST' } },
				{ key: 'http.route', value: { stringValue: '/api/v1/orgs/{orgId}/sessions' } },
				{ key: 'http.response.status_code', value: { intValue: '503' } },
			],
			status: { code: SpanStatusCode.ERROR },
		},
		{
			traceId: '1'.repeat(32),
			spanId: '2'.repeat(16),
			name: 'GET',
			kind: 2,
			startTimeUnixNano: nanos(unrouted.startTime),
			endTimeUnixNano: nanos(unrouted.endTime),
			attributes: [
				{ key: 'http.request.method', value: { stringValue: 'GET' } },
				{ key: 'http.response.status_code', value: { intValue: '404' } },
			],
		},
	]);
});

it('exports each request span with its own method, route and status, however many share them', async () => {
	const collector = await startCollector();
	const { exporter, recorder } = exporting(collector.url);
	const answered: [string, string | undefined, number][] = [
		['GET', '/api/v1/me', 200],
		['GET', '/api/v1/me', 200],
		['GET', '/api/v1/me', 503],
		['POST', '/api/v1/me', 200],
		['GET', undefined, 200],
		['GET', '/api/v1/orgs/{orgId}', 200],
		['GET', '/api/v1/me', 200],
	];
	for (const [method, route, statusCode] of answered) {
		const span = new RequestSpan(method, undefined, recorder);
		span.route = route;
		span.statusCode = statusCode;
		span.end();
	}
	recorder.flush();
	await exporter.stop();
	collector.close();

	expect(
		collector.spans().map(({ name, kind, attributes, status }) => ({
			name,
			kind,
			attributes,
			status,
		})),
	).toEqual(
		answered.map(([method, route, statusCode]) => ({
			name: route ? `${method} ${route}` : method,
			kind: 2,
			attributes: [
				{ key: 'http.request.method', value: { stringValue: method } },
				...(route ? [{ key: 'http.route', value: { stringValue: route } }] : []),
				{ key: 'http.response.status_code', value: { intValue: String(statusCode) } },
			],
			status: statusCode >= 500 ? { code: SpanStatusCode.ERROR } : undefined,
		})),
	);
	expect(new Set(collector.spans().map((span) => span.spanId)).size).toBe(answered.length);
});

it('exports the span of each read recorded as a row, with its times, among request spans made whole', async () => {
	const collector = await startCollector();
	const { exporter, recorder } = exporting(collector.url);
	const kinds: [string, string | undefined, number][] = [
		['GET', '/api/v1/me', 200],
		['GET', '/api/v1/sessions/{sessionId}', 404],
		['HEAD', undefined, 404],
		['GET', '/api/v1/me', 503],
		['OPTIONS', '/api/v1/orgs/{orgId}', 204],
	];
	const at = epochMs();
	// More than a write of 64 holds; one request in seven made whole, as a read under a trace is.
	const answered = Array.from({ length: 300 }, (_, index): Answered & { row: boolean } => {
		const [method, route, statusCode] = kinds[index % kinds.length];
		const start = at + index * 1.5;
		return {
			method,
			route,
			statusCode,
			start,
			end: start + 0.25 + index / 997,
			row: index % 7 !== 0,
		};
	});
	for (const [index, request] of answered.entries()) {
		const { method, route, statusCode, start, end } = request;
		if (request.row) recorder.requestEnded(method, route, statusCode, start, end);
		else {
			const span = new RequestSpan(method, undefined, recorder, start);
			span.route = route;
			span.statusCode = statusCode;
			span.end(end);
		}
		// Some read and sent while the rest are still to come.
		if (index === 150) await exporter.flush();
	}

	const spans = await exportedSpans(recorder, exporter, collector);
	expect(spans.map(saysOf)).toEqual(answered.map(requestSpanSays));
	expectRootIdsOfTheirOwn(spans);
	expect(collector.exports.length).toBeGreaterThan(1);
});

it('writes whole the span of a request whose fields have no room left to be defined beside its ring', async () => {
	const collector = await startCollector();
	// Room for two or three requests' fields.
	const { exporter, recorder } = exporting(collector.url, 'api', SMALL_RING, 300);
	const at = epochMs();
	const answered = Array.from(
		{ length: 12 },
		(_, index): Answered => ({
			method: 'GET',
			// One longer than all the room.
			route: index === 1 ? `/api/v1/${'x'.repeat(2000)}` : `/api/v1/route-${index % 6}`,
			statusCode: 200,
			start: at + index,
			end: at + index + 0.5,
		}),
	);
	recordRows(recorder, answered);

	const spans = await exportedSpans(recorder, exporter, collector);
	expect(spans.map(saysOf)).toEqual(answered.map(requestSpanSays));
	expectRootIdsOfTheirOwn(spans);
});

it('writes rows as the export side that read them first did, once another takes over the ring (a span export thread started again)', async () => {
	const collector = await startCollector();
	const ring = spanRing(SMALL_RING);
	const recorder = new SpanRecorder(ring);
	const at = epochMs();
	const me = (index: number): Answered => ({
		method: 'GET',
		route: '/api/v1/me',
		statusCode: 200,
		start: at + index,
		end: at + index + 0.5,
	});
	const answered = [me(0), me(1), { ...me(2), route: '/api/v1/orgs/{orgId}' }];
	const first = newExporter(collector.url);
	first.read(ring);
	recordRows(recorder, answered.slice(0, 1));
	recorder.flush();
	await first.stop();
	const second = newExporter(collector.url);
	second.read(ring);
	recordRows(recorder, answered.slice(1));

	const spans = await exportedSpans(recorder, second, collector);
	expect(collector.exports).toHaveLength(2);
	expect(spans.map(saysOf)).toEqual(answered.map(requestSpanSays));
});

it('drops the rows a full ring has no room for, each counted, and sends the rest', async () => {
	const collector = await startCollector();
	// Three records of 64 rows (1,283 bytes each) fit; not a fourth.
	const { exporter, recorder } = exporting(collector.url, 'api', 4096);
	const at = epochMs();
	for (let index = 0; index < 64 * 10; index++)
		recorder.requestEnded('GET', '/api/v1/me', 200, at + index, at + index + 0.5);

	const spans = await exportedSpans(recorder, exporter, collector);
	expect(recorder.dropped).toBe(64 * 7);
	expect([exporter.lost.ringFull, exporter.lost.exportFailed]).toEqual([64 * 7, 0]);
	expect(spans.map((span) => span.startTimeUnixNano)).toEqual(
		Array.from({ length: 64 * 3 }, (_, index) => nanos(at + index)),
	);
});

it('exports a root request span with the ids it was asked for, or with ids of its own drawn as it is written', async () => {
	const collector = await startCollector();
	const { exporter, recorder } = exporting(collector.url);
	const asked = new RequestSpan('POST', undefined, recorder);
	const askedIds = asked.spanContext();
	asked.end();
	const read = Array.from({ length: 3 }, () => new RequestSpan('GET', undefined, recorder));
	for (const span of read) span.end();
	recorder.flush();
	await exporter.stop();
	collector.close();

	const [first, ...others] = collector.spans();
	expect([first.traceId, first.spanId, first.parentSpanId, first.name]).toEqual([
		askedIds.traceId,
		askedIds.spanId,
		undefined,
		'POST',
	]);
	expect(others.map(({ name, parentSpanId }) => [name, parentSpanId])).toEqual(
		read.map(() => ['GET', undefined]),
	);
	for (const { traceId, spanId } of others)
		expect(isSpanContextValid({ traceId, spanId, traceFlags: TraceFlags.SAMPLED })).toBe(true);
	expect(new Set(collector.spans().map((span) => span.traceId)).size).toBe(4);
	expect(new Set(collector.spans().map((span) => span.spanId)).size).toBe(4);
});

it("exports a delivery attempt's span with its outcome, and the error of one that failed", async () => {
	const collector = await startCollector();
	const { exporter, recorder } = exporting(collector.url);
	const of = {
		deliveryId: 'dlv_1',
		webhookId: 'wh_1',
		eventType: 'member.removed',
		attempt: 3,
		host: 'n8n.example',
	};
	const ids = (n: string, parentSpanId?: string) =>
		SpanIds.of({
			traceId: n.repeat(32),
			spanId: n.repeat(16),
			parentSpanId,
			traceFlags: TraceFlags.SAMPLED,
		});
	const failed = new AttemptSpan(of, ids('a', 'b'.repeat(16)), recorder);
	failed.outcome = 'failed';
	failed.statusCode = 503;
	failed.error = 'HTTP 503: "unavailable"';
	failed.end();
	const interrupted = new AttemptSpan({ ...of, attempt: 1 }, ids('c'), recorder);
	interrupted.end();
	recorder.flush();
	await exporter.stop();
	collector.close();

	const attributes = (attempt: string) => [
		{ key: 'traininglab.delivery.id', value: { stringValue: 'dlv_1' } },
		{ key: 'traininglab.webhook.id', value: { stringValue: 'wh_1' } },
		{ key: 'traininglab.event.type', value: { stringValue: 'member.removed' } },
		{ key: 'traininglab.attempt', value: { intValue: attempt } },
		{ key: 'server.address', value: { stringValue: 'n8n.example' } },
	];
	expect(collector.spans()).toEqual([
		{
			traceId: 'a'.repeat(32),
			spanId: 'a'.repeat(16),
			parentSpanId: 'b'.repeat(16),
			name: 'deliver member.removed',
			kind: 3,
			startTimeUnixNano: nanos(failed.startTime),
			endTimeUnixNano: nanos(failed.endTime),
			attributes: [
				...attributes('3'),
				{ key: 'traininglab.outcome', value: { stringValue: 'failed' } },
				{ key: 'http.response.status_code', value: { intValue: '503' } },
			],
			status: { code: SpanStatusCode.ERROR, message: 'HTTP 503: "unavailable"' },
		},
		{
			traceId: 'c'.repeat(32),
			spanId: 'c'.repeat(16),
			name: 'deliver member.removed',
			kind: 3,
			startTimeUnixNano: nanos(interrupted.startTime),
			endTimeUnixNano: nanos(interrupted.endTime),
			attributes: [
				...attributes('1'),
				{ key: 'traininglab.outcome', value: { stringValue: 'interrupted' } },
			],
		},
	]);
});

// Lengths are written after what they measure, and moved when they take one byte more or less:
// strings of every size and kind, around those boundaries, in spans filling several batches.
it("decodes back whatever an event span's strings hold, across batches", async () => {
	const text = fc.oneof(
		fc.string({ unit: 'binary', maxLength: 300 }),
		fc.string({ unit: 'grapheme-ascii', minLength: 100, maxLength: 20_000 }),
	);
	const spans = fc.array(fc.record({ eventId: text, eventType: text }), {
		minLength: 1,
		maxLength: 120,
	});
	await fc.assert(
		fc.asyncProperty(spans, async (ended) => {
			const collector = await startCollector();
			const { exporter, recorder } = exporting(collector.url);
			for (const [index, { eventId, eventType }] of ended.entries())
				eventSpan(recorder, index, eventId, eventType).end();
			recorder.flush();
			await exporter.stop();
			collector.close();

			expect(collector.spans().map(({ name, attributes }) => ({ name, attributes }))).toEqual(
				ended.map(({ eventId, eventType }) => ({
					name: `event ${eventType.toWellFormed()}`,
					attributes: [
						{ key: 'traininglab.event.id', value: { stringValue: eventId.toWellFormed() } },
						{ key: 'traininglab.event.type', value: { stringValue: eventType.toWellFormed() } },
					],
				})),
			);
		}),
		{ numRuns: 40 },
	);
});

it('sends at most 8,192 spans an export, a span larger than a batch whole, and drops one larger than its ring', async () => {
	const collector = await startCollector();
	const ring = 2 * SMALL_RING;
	const { exporter, recorder } = exporting(collector.url, 'api', ring);
	// 4.4 MB, past a batch's 4 MiB.
	const large = 'ü'.repeat(2_200_000);
	const count = 20_000;
	for (let index = 0; index < count; index++)
		eventSpan(recorder, index, index === 700 ? large : `span ${index}`).end();
	eventSpan(recorder, count, 'x'.repeat(ring)).end();
	eventSpan(recorder, count + 1, 'after').end();
	recorder.flush();
	await exporter.stop();
	collector.close();

	const sizes = collector.exports.map((body) => body.resourceSpans[0].scopeSpans[0].spans.length);
	expect(Math.max(...sizes)).toBe(8192);
	const ids = collector.spans().map(eventIdOf);
	expect(ids).toEqual([
		...Array.from({ length: count }, (_, index) => (index === 700 ? large : `span ${index}`)),
		'after',
	]);
	expect(recorder.dropped).toBe(1);
	expect([exporter.lost.ringFull, exporter.lost.exportFailed]).toEqual([1, 0]);
});

it('drops the spans a full ring has no room for, and sends those it holds and the ones after', async () => {
	const collector = await startCollector();
	const { exporter, recorder } = exporting(collector.url, 'api', SMALL_RING);
	// In one turn of the event loop, so that the exporter reads none of them: more than the ring
	// holds (each span takes more than 32 bytes: its ids alone do).
	const written = SMALL_RING / 32;
	for (let index = 0; index < written; index++) eventSpan(recorder, index, `span ${index}`).end();
	recorder.flush();
	const dropped = recorder.dropped;
	await exporter.flush();
	eventSpan(recorder, written, 'after').end();
	recorder.flush();
	await exporter.stop();
	collector.close();

	expect(dropped).toBeGreaterThan(0);
	expect(collector.spans().map(eventIdOf)).toEqual([
		...Array.from({ length: written - dropped }, (_, index) => `span ${index}`),
		'after',
	]);
	expect([exporter.lost.ringFull, exporter.lost.exportFailed]).toEqual([dropped, 0]);
});

it('counts the spans of every export the collector refuses or cannot be reached for, and no other', async () => {
	let refusing = true;
	const collector = createServer((req, res) => {
		req.resume();
		req.on('end', () => res.writeHead(refusing ? 503 : 200).end());
	});
	await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
	try {
		const { exporter, recorder } = exporting(url);
		const send = async (spans: number) => {
			for (let index = 0; index < spans; index++) eventSpan(recorder, index).end();
			recorder.flush();
			await exporter.flush();
		};
		await send(3000); // two exports: 2,048 and 952 spans
		expect(exporter.lost.exportFailed).toBe(3000);
		refusing = false;
		await send(10);
		expect(exporter.lost.exportFailed).toBe(3000);
		await exporter.stop();

		const unreachable = exporting('http://127.0.0.1:9');
		for (let index = 0; index < 5; index++) eventSpan(unreachable.recorder, index).end();
		unreachable.recorder.flush();
		await unreachable.exporter.stop();
		expect([unreachable.exporter.lost.ringFull, unreachable.exporter.lost.exportFailed]).toEqual([
			0, 5,
		]);
	} finally {
		collector.close();
	}
});
