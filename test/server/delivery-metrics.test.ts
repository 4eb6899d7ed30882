import { DeliveryMetrics } from '../../server/src/observability/delivery-metrics.ts';
import type { KeptResponse, SendOutcome } from '../../server/src/outbox/types.ts';

// Attempts are counted into a table by outcome and status class, read when /metrics is scraped:
// each one lands under its own pair, and no other pair moves.
const answer: KeptResponse = { headers: {}, body: '', bodyTruncated: false };
const OUTCOMES: SendOutcome[] = [
	{ kind: 'delivered', statusCode: 204, error: null, response: answer },
	{ kind: 'retry_after', statusCode: 429, error: 'slow down', response: answer, afterMs: 1000 },
	{ kind: 'retry_after', statusCode: 503, error: 'busy', response: answer, afterMs: 1000 },
	{ kind: 'gone', statusCode: 410, error: 'gone', response: answer },
	{ kind: 'not_registered', statusCode: 404, error: 'not registered', response: answer },
	{ kind: 'failed', statusCode: 101, error: 'switching', response: answer },
	{ kind: 'failed', statusCode: 200, error: 'no receipt', response: answer },
	{ kind: 'failed', statusCode: 302, error: 'moved', response: answer },
	{ kind: 'failed', statusCode: 400, error: 'bad', response: answer },
	{ kind: 'failed', statusCode: 500, error: 'broken', response: answer },
	{ kind: 'failed', statusCode: null, error: 'timed out', response: null },
];

/** One attempt of `outcome` recorded, for an event of a known time (not a test event). */
const record = (metrics: DeliveryMetrics, outcome: SendOutcome) =>
	metrics.attempt(outcome, '2026-11-30T06:00:00.000Z', false, Date.now());

async function attemptCounts(metrics: DeliveryMetrics): Promise<Record<string, number>> {
	const counter = metrics.registry.getSingleMetric('traininglab_webhook_attempts_total')!;
	const { values } = await counter.get();
	return Object.fromEntries(
		values.map(({ labels, value }) => [`${labels.outcome} ${labels.status_class}`, value]),
	);
}

it('counts each attempt under its outcome and its answer’s status class, and no other', async () => {
	const metrics = new DeliveryMetrics(() => 0);
	const before = await attemptCounts(metrics);
	expect(Object.values(before).every((count) => count === 0)).toBe(true);

	for (const [index, outcome] of OUTCOMES.entries())
		for (let time = 0; time <= index; time++) record(metrics, outcome);

	expect(await attemptCounts(metrics)).toEqual({
		...before,
		'delivered 2xx': 1,
		'retry_after 4xx': 2,
		'retry_after 5xx': 3,
		'gone 4xx': 4,
		'not_registered 4xx': 5,
		'failed 1xx': 6,
		'failed 2xx': 7,
		'failed 3xx': 8,
		'failed 4xx': 9,
		'failed 5xx': 10,
		'failed none': 11,
	});
});

it('counts a status outside 100–599 as no answer, and a pair it does not list under its own labels', async () => {
	const metrics = new DeliveryMetrics(() => 0);
	record(metrics, { kind: 'failed', statusCode: 999, error: 'odd', response: answer });
	record(metrics, { kind: 'gone', statusCode: 410, error: 'gone', response: answer });
	// A pair outside the listed ones (a delivered attempt has a 2xx): counted, not lost.
	record(metrics, { kind: 'delivered', statusCode: 302, error: null, response: answer });
	const counts = await attemptCounts(metrics);
	expect(counts['failed none']).toBe(1);
	expect(counts['gone 4xx']).toBe(1);
	expect(counts['delivered 3xx']).toBe(1);
});
