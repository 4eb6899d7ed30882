// Benchmarks of the n8n package's code, run by `npm run bench` through jest (they reuse the n8n-core
// harness of the tests); each adds its figures to the JSON object in BENCH_RESULT_FILE.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { signatureProblem } from '../nodes/TrainingLabTrigger/signature';
import { signedHeaders } from '../server/src/outbox/signature';
import { createOrg } from '../test/support/fixtures';
import { startTestServer } from '../test/support/test-server';
import { runTrainingLab } from '../test/support/n8n';
import { byId } from '../test/support/node-runner';
import { LossyProxy } from '../test/support/lossy-proxy';
import { Poller } from '../test/support/poller';

// BENCH_SMOKE=1 (`npm run bench -- --smoke`): the same work at sizes that take seconds.
const SMOKE = process.env.BENCH_SMOKE === '1';
const SESSIONS = SMOKE ? 20 : Number(process.env.BENCH_NODE_SESSIONS ?? 1000);
const BUDGET = SMOKE ? 10 : 600;
const WINDOW_S = SMOKE ? 1 : 60;

function report(name: string, figures: object): void {
	const file = process.env.BENCH_RESULT_FILE;
	if (!file) return console.log(name, figures);
	const all = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
	writeFileSync(file, JSON.stringify({ ...all, [name]: figures }));
}

it('verifies a signed 2 KB delivery in the trigger (µs per verification)', () => {
	const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
	const body = Buffer.from(
		JSON.stringify({ id: 'evt', type: 'member.removed', data: { note: 'x'.repeat(1960) } }),
	);
	const timestamp = Math.floor(Date.now() / 1000);
	const headers = signedHeaders([secret], 'evt', timestamp, body.toString());
	const iterations = SMOKE ? 1_000 : 100_000;
	for (let i = 0; i < 2_000; i++) signatureProblem([secret], headers, body, timestamp);
	const started = process.hrtime.bigint();
	for (let i = 0; i < iterations; i++)
		if (signatureProblem([secret], headers, body, timestamp) !== null)
			throw new Error('verification failed');
	report('signature', {
		microseconds: Number(process.hrtime.bigint() - started) / 1000 / iterations,
		bodyBytes: body.length,
	});
});

it(
	`creates ${SESSIONS} sessions through the node under a ${BUDGET}/${WINDOW_S}s rate limit`,
	async () => {
		const server = await startTestServer({
			RATE_LIMIT_REQUESTS: String(BUDGET),
			RATE_LIMIT_WINDOW_S: String(WINDOW_S),
		});
		const proxy = await LossyProxy.start(server.url);
		try {
			const org = await createOrg(server);
			await new Promise((resolve) => setTimeout(resolve, WINDOW_S * 1000 + 500)); // a fresh window after the fixture's requests
			const input = Array.from({ length: SESSIONS }, (_, i) => ({ title: `Bulk ${i}` }));
			const started = Date.now();
			const run = await runTrainingLab(
				{
					resource: 'session',
					operation: 'create',
					title: '={{ $json.title }}',
					labVersion: byId(org.publishedVersionId),
					capacity: 20,
					additionalFields: {},
				},
				{
					credentials: { baseUrl: proxy.url, apiKey: org.admin.key! },
					input,
					settings: { continueOnFail: true },
				},
			);
			const seconds = (Date.now() - started) / 1000;
			const requests = proxy.exchanges.filter((e) => e.status !== 429).length;
			const failures = run.items.filter((item) => item.json.error).length;
			const created = (
				server.db.prepare("SELECT count(*) AS n FROM sessions WHERE title LIKE 'Bulk %'").get() as {
					n: number;
				}
			).n;
			const idealSeconds = (requests / BUDGET) * WINDOW_S;
			report('bulk', {
				sessions: SESSIONS,
				seconds,
				requests,
				rateLimited: proxy.exchanges.length - requests,
				idealSeconds,
				ratio: seconds / idealSeconds,
				failures,
				duplicates: created - SESSIONS,
			});
			expect(run.error).toBeUndefined();
		} finally {
			await proxy.stop();
			await server.stop();
		}
	},
	15 * 60_000,
);

it('polls a busy activity log for 1 of its 22 event types', async () => {
	const server = await startTestServer({ RATE_LIMIT_REQUESTS: '1000000' });
	const proxy = await LossyProxy.start(server.url);
	try {
		const org = await createOrg(server);
		const actor = {
			orgId: org.id,
			userId: org.adminUserId,
			email: `admin@${org.slug}.test`,
			role: 'admin' as const,
		};
		const poller = new Poller(
			{ baseUrl: proxy.url, apiKey: org.admin.key! },
			{ events: ['member.removed'] },
		);
		await poller.poll(); // where the log stands
		const rounds = SMOKE ? 1 : 5;
		const otherEvents = SMOKE ? 200 : 2_000;
		const removals = 10;
		const requests: number[] = [];
		const milliseconds: number[] = [];
		for (let round = 0; round < rounds; round++) {
			for (let i = 0; i < otherEvents; i++) {
				server.services.labs.create(actor, { name: `Busy ${round} ${i}`, tier: 'vm' });
				if (i % (otherEvents / removals) === 0) {
					const member = server.services.members.add(actor, {
						email: `leaver-${round}-${i}@example.com`,
						name: 'Leaver',
						role: 'trainer',
					});
					server.services.members.remove(actor, member.user_id);
				}
			}
			proxy.exchanges.length = 0;
			const started = performance.now();
			const items = (await poller.poll()) ?? [];
			milliseconds.push(performance.now() - started);
			// The poll's own requests; telling the API that the execution ended is one more, per execution.
			requests.push(proxy.exchanges.filter((exchange) => exchange.method !== 'DELETE').length);
			if (items.length !== removals || items.some((item) => item.type !== 'member.removed'))
				throw new Error(`poll ${round} emitted ${items.length} items, not ${removals} removals`);
		}
		// Each round's log also has the `member.added` of each leaver.
		report('activityPoll', {
			eventsBetweenPolls: otherEvents + 2 * removals,
			emitted: removals,
			requests,
			milliseconds,
		});
	} finally {
		await proxy.stop();
		await server.stop();
	}
});
