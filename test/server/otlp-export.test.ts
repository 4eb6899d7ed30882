import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTraceState, SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { OtlpJsonExporter } from '../../server/src/observability/otlp-exporter.ts';
import { RecordedSpan } from '../../server/src/observability/recorded-span.ts';

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
			startTimeUnixNano: span.startTimeUnixNano,
			endTimeUnixNano: span.endTimeUnixNano,
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
			startTimeUnixNano: root.startTimeUnixNano,
			endTimeUnixNano: root.endTimeUnixNano,
			attributes: [],
			status: { code: SpanStatusCode.UNSET },
		},
	]);
	expect(span.startTimeUnixNano).toMatch(/^\d{19}$/);
});
