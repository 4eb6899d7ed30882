import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTraceState, SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { OtlpJsonExporter } from '../../server/src/observability/otlp-exporter.ts';
import { RecordedSpan, unixNano } from '../../server/src/observability/recorded-span.ts';

// The exporter writes OTLP's JSON by hand (it is on the request thread); what a collector parses
// from it must be every field of the span, whatever its attributes hold.
it('exports each field and attribute of a span as OTLP JSON that parses back to it', async () => {
	const bodies: string[] = [];
	const collector = createServer((req, res) => {
		let body = '';
		req.on('data', (chunk) => (body += chunk));
		req.on('end', () => {
			bodies.push(body);
			res.end('{}');
		});
	});
	await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
	const exporter = new OtlpJsonExporter(
		`http://127.0.0.1:${(collector.address() as AddressInfo).port}/`,
		'service "quoted"',
	);
	const span = new RecordedSpan(
		'GET',
		SpanKind.SERVER,
		{
			traceId: '0af7651916cd43dd8448eb211c80319c',
			spanId: 'b7ad6b7169203331',
			traceFlags: TraceFlags.SAMPLED,
			traceState: createTraceState('vendor=a:b,other=c'),
		},
		'00f067aa0ba902b7',
		{ 'http.request.method': 'GET' },
		exporter,
	);
	span.updateName('GET /orgs/{orgId} "ünïcode"\n');
	span.setAttributes({
		text: 'line\nbreak "quote" \\ \u2028',
		whole: 204,
		fraction: 0.25,
		flag: false,
		list: ['a', 1, true, null as unknown as string],
		missing: undefined,
	});
	span.setStatus({ code: SpanStatusCode.ERROR, message: 'failed: "why"' });
	span.end();
	const root = new RecordedSpan(
		'event',
		SpanKind.INTERNAL,
		{ traceId: '1'.repeat(32), spanId: '2'.repeat(16), traceFlags: TraceFlags.SAMPLED },
		undefined,
		undefined,
		exporter,
	);
	root.end();
	await exporter.shutdown();
	collector.close();

	expect(bodies).toHaveLength(1);
	const exported = JSON.parse(bodies[0]);
	expect(exported.resourceSpans[0].resource.attributes).toEqual([
		{ key: 'service.name', value: { stringValue: 'service "quoted"' } },
	]);
	expect(exported.resourceSpans[0].scopeSpans[0].spans).toEqual([
		{
			traceId: '0af7651916cd43dd8448eb211c80319c',
			spanId: 'b7ad6b7169203331',
			parentSpanId: '00f067aa0ba902b7',
			traceState: 'vendor=a:b,other=c',
			name: 'GET /orgs/{orgId} "ünïcode"\n',
			kind: 2,
			startTimeUnixNano: unixNano(span.startTime),
			endTimeUnixNano: unixNano(span.endTime!),
			attributes: [
				{ key: 'http.request.method', value: { stringValue: 'GET' } },
				{ key: 'text', value: { stringValue: 'line\nbreak "quote" \\ \u2028' } },
				{ key: 'whole', value: { intValue: 204 } },
				{ key: 'fraction', value: { doubleValue: 0.25 } },
				{ key: 'flag', value: { boolValue: false } },
				{
					key: 'list',
					value: {
						arrayValue: {
							values: [{ stringValue: 'a' }, { intValue: 1 }, { boolValue: true }],
						},
					},
				},
			],
			status: { code: SpanStatusCode.ERROR, message: 'failed: "why"' },
		},
		{
			traceId: '1'.repeat(32),
			spanId: '2'.repeat(16),
			name: 'event',
			kind: 1,
			startTimeUnixNano: unixNano(root.startTime),
			endTimeUnixNano: unixNano(root.endTime!),
			attributes: [],
			status: { code: SpanStatusCode.UNSET },
		},
	]);
	expect(unixNano(span.startTime)).toMatch(/^\d{19}$/);
});

/** A collector on a free port that keeps each export's spans. */
async function startCollector() {
	const exports: unknown[][] = [];
	const collector = createServer((req, res) => {
		let body = '';
		req.setEncoding('utf8');
		req.on('data', (chunk) => (body += chunk));
		req.on('end', () => {
			exports.push(JSON.parse(body).resourceSpans[0].scopeSpans[0].spans);
			res.end('{}');
		});
	});
	await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
		exports,
		close: () => collector.close(),
	};
}

function endSpan(exporter: OtlpJsonExporter, index: number, attributes = {}): void {
	const id = (index + 1).toString(16).padStart(16, '0');
	new RecordedSpan(
		`span ${index}`,
		SpanKind.INTERNAL,
		{ traceId: id.repeat(2), spanId: id, traceFlags: TraceFlags.SAMPLED },
		undefined,
		attributes,
		exporter,
	).end();
}

it('sends at most 512 spans an export, and a span larger than a batch whole', async () => {
	const collector = await startCollector();
	const exporter = new OtlpJsonExporter(collector.url, 'api');
	const large = 'ü'.repeat(400_000);
	for (let index = 0; index < 1100; index++)
		endSpan(exporter, index, index === 700 ? { large } : {});
	await exporter.shutdown();
	collector.close();

	expect(collector.exports.every((spans) => spans.length <= 512)).toBe(true);
	const names = collector.exports.flat().map((span) => (span as { name: string }).name);
	expect(names).toEqual(Array.from({ length: 1100 }, (_, index) => `span ${index}`));
	const exported = collector.exports.flat()[700] as { attributes: unknown[] };
	expect(exported.attributes).toEqual([{ key: 'large', value: { stringValue: large } }]);
});

it('drops spans past 4,096 waiting while an export is under way, and sends the rest after', async () => {
	const collector = await startCollector();
	const exporter = new OtlpJsonExporter(collector.url, 'api');
	// In one turn of the event loop: the first 512 leave at once, 4,096 more wait their turn.
	for (let index = 0; index < 6000; index++) endSpan(exporter, index);
	await exporter.shutdown();
	collector.close();

	const names = collector.exports.flat().map((span) => (span as { name: string }).name);
	expect(names).toEqual(Array.from({ length: 512 + 4096 }, (_, index) => `span ${index}`));
});
