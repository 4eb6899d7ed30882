import fc from 'fast-check';
import { Histogram, Registry } from 'prom-client';
import { RequestDurations } from '../../server/src/observability/request-durations.ts';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];

/** Values sorted by what they are, so that two histograms' can be compared whatever their series' order. */
function sorted(values: Array<{ metricName?: string; labels: object; value: number }>) {
	const keyOf = (v: { metricName?: string; labels: object }) =>
		JSON.stringify([v.metricName, Object.entries(v.labels).sort()]);
	return values
		.map((v) => ({ key: keyOf(v), value: v.value }))
		.sort((a, b) => a.key.localeCompare(b.key));
}

describe('the request-duration histogram', () => {
	it("gives what prom-client's Histogram gives for the same requests: buckets, +Inf, sum and count of each series", async () => {
		const request = fc.record({
			method: fc.oneof(fc.constantFrom(...METHODS), fc.constantFrom('PROPFIND', 'get', '')),
			route: fc.constantFrom('/api/v1/me', '/api/v1/sessions/{sessionId}', 'unmatched'),
			status: fc.constantFrom(200, 201, 204, 400, 404, 429, 500),
			// Exactly on a bound too: a value equal to a bound is counted in that bound's bucket.
			seconds: fc.oneof(
				fc.double({ min: 0, max: 40, noNaN: true }),
				fc.constantFrom(...BUCKETS, 0, 31),
			),
		});
		// Up to 200: requests are counted 64 at a time, and those left when asked.
		await fc.assert(
			fc.asyncProperty(fc.array(request, { maxLength: 200, size: 'max' }), async (requests) => {
				const ours = new RequestDurations();
				const theirs = new Histogram({
					name: ours.name,
					help: ours.help,
					labelNames: ['method', 'route', 'status'],
					buckets: BUCKETS,
					registers: [],
				});
				for (const { method, route, status, seconds } of requests) {
					ours.observe(method, route, status, seconds);
					theirs.observe(
						{ method: METHODS.includes(method) ? method : 'other', route, status: String(status) },
						seconds,
					);
				}
				const [mine, reference] = [await ours.get(), await theirs.get()];
				expect({ ...mine, values: sorted(mine.values) }).toEqual({
					name: reference.name,
					help: reference.help,
					type: reference.type,
					aggregator: reference.aggregator,
					values: sorted(reference.values),
				});
			}),
			{ numRuns: 200 },
		);
	});

	it('is exposed by a Registry in the text format, one line per bucket', async () => {
		const durations = new RequestDurations();
		durations.observe('GET', '/api/v1/me', 200, 0.0025);
		durations.observe('GET', '/api/v1/me', 200, 31);
		const registry = new Registry();
		registry.registerMetric(durations.asMetric());
		const text = await registry.metrics();
		expect(text).toContain('# TYPE traininglab_http_request_duration_seconds histogram');
		const line = (le: string) =>
			`traininglab_http_request_duration_seconds_bucket{method="GET",route="/api/v1/me",status="200",le="${le}"}`;
		expect(text).toContain(`${line('0.001')} 0`);
		expect(text).toContain(`${line('0.0025')} 1`);
		expect(text).toContain(`${line('30')} 1`);
		expect(text).toContain(`${line('+Inf')} 2`);
		expect(text).toContain(
			'traininglab_http_request_duration_seconds_sum{method="GET",route="/api/v1/me",status="200"} 31.0025',
		);
	});
});
