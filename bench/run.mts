import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BOUNDS } from '../server/src/schemas/bounds.ts';
import { benchConsole } from './console.mts';
import { benchObservability, type ObservabilityRow } from './observability.mts';
import { THREAD_KINDS } from './thread-times.mts';
import { benchScaling } from './scaling.mts';
import { median, ROOT, SMOKE } from './support.mts';
import { benchThroughput } from './throughput.mts';
import { benchWebhookDelivery } from './webhook-delivery.mts';
import { benchWebhookFairness } from './webhook-fairness.mts';
import { benchWebhookRecovery } from './webhook-recovery.mts';

// `npm run bench`: every benchmark on this machine in one run, one table at the end.
// Benchmarks report; no test depends on their numbers. Progress goes to stderr, the table to stdout.
const rows: Array<{ benchmark: string; result: string; target: string }> = [];
const add = (benchmark: string, result: string, target = '') => {
	rows.push({ benchmark, result, target });
	console.error(`  ${benchmark}: ${result}`);
};
const ms = (value: number) => `${value} ms`;
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;
const started = Date.now();

// `--smoke` (CI): every part end to end at sizes that take seconds; its figures mean nothing.
const throughput = SMOKE
	? { rounds: 1, seconds: 1, sessions: 1_000, connections: [10], warmUp: false }
	: { rounds: 3, seconds: 1, sessions: 10_000, connections: [1, 10, 100], warmUp: true };
console.error(
	`server throughput against a bare node:http baseline (${throughput.sessions.toLocaleString('en')} sessions in the database; ${throughput.rounds} interleaved rounds of ${throughput.seconds} s per cell)…`,
);
for (const row of await benchThroughput(throughput)) {
	const ratio = row.ours.requestsPerSecond / row.baseline.requestsPerSecond;
	const write = row.endpoint.startsWith('POST');
	const target = [
		`ratio ≥ ${write ? '0.8' : '0.6'}: ${ratio >= (write ? 0.8 : 0.6) ? 'met' : 'MISSED'}`,
	];
	if (row.connections === 10) target.push(`p99 < 10 ms: ${row.ours.p99Ms < 10 ? 'met' : 'MISSED'}`);
	add(
		`${row.endpoint}, ${row.connections} conn.`,
		`${row.ours.requestsPerSecond} req/s (${ratio.toFixed(2)} × baseline ${row.baseline.requestsPerSecond}), p50 ${ms(row.ours.p50Ms)} / p99 ${ms(row.ours.p99Ms)} (baseline ${ms(row.baseline.p50Ms)} / ${ms(row.baseline.p99Ms)})${row.ours.errors ? `, ${row.ours.errors} errors` : ''}`,
		target.join('; '),
	);
}

console.error('scaling with data (10 connections)…');
for (const row of await benchScaling(SMOKE ? [1_000] : [1_000, 10_000, 100_000], SMOKE ? 1 : 2)) {
	add(
		`${row.read}, ${row.rows.toLocaleString('en')} rows`,
		`${row.result.requestsPerSecond} req/s, p50 ${ms(row.result.p50Ms)} / p99 ${ms(row.result.p99Ms)}`,
		'flat across sizes',
	);
}

console.error('webhook delivery…');
// Up to the most endpoints one organization may have: a change fans out to its organization's only.
for (const endpoints of SMOKE
	? [1, BOUNDS.webhookEndpoints.max]
	: [1, 10, BOUNDS.webhookEndpoints.max]) {
	const rate = Math.min(200, 2000 / endpoints);
	const result = await benchWebhookDelivery({
		endpoints,
		backlog: SMOKE ? 20 : Math.max(50, Math.round(5000 / endpoints)),
		steadyChanges: Math.round(rate * (SMOKE ? 0.5 : 5)),
		ratePerSecond: rate,
	});
	add(
		`webhook delivery, ${endpoints} endpoint${endpoints === 1 ? '' : 's'}`,
		`${result.deliveriesPerSecond} deliveries/s; change→receiver p50 ${ms(result.latencyP50Ms)} / p99 ${ms(result.latencyP99Ms)} at ${rate * endpoints} deliveries/s`,
		endpoints === 1
			? `≥ 1,000/s and p50 < 20 ms: ${result.deliveriesPerSecond >= 1000 && result.latencyP50Ms < 20 ? 'met' : 'MISSED'}`
			: '',
	);
}

const recoveryOptions = SMOKE
	? { backlog: 200, rounds: 1, ratePerSecond: 200, answerMs: 20 }
	: { backlog: 10_000, rounds: 5, ratePerSecond: 200, answerMs: 20 };
console.error(
	`${recoveryOptions.backlog.toLocaleString('en')} deliveries draining, and recovered, while other requests go on (${recoveryOptions.rounds} rounds, each contender in turn against the same load with nothing to deliver)…`,
);
const recovery = await benchWebhookRecovery(recoveryOptions);
const drainRatio = recovery.drainP99Ms / recovery.idleP99Ms;
const p99Ratio = recovery.recoveryP99Ms / recovery.idleP99Ms;
add(
	`webhook backlog, ${recovery.backlog.toLocaleString('en')} deliveries to one endpoint`,
	`drained at ${recovery.deliveriesPerSecond}/s (the endpoint's pace: ${recovery.endpointPacePerSecond}/s), at most ${recovery.mostInFlight} in flight; other requests' p99 ${recovery.drainP99Ms.toFixed(1)} ms draining, ${recovery.recoveryP99Ms.toFixed(1)} ms recovered, against ${recovery.idleP99Ms.toFixed(1)} ms idle (${drainRatio.toFixed(2)} ×, ${p99Ratio.toFixed(2)} ×); recover answered in ${ms(Math.round(recovery.answerMs))}; another endpoint's deliveries meanwhile p50 ${ms(recovery.otherEndpointP50Ms)} / max ${ms(recovery.otherEndpointMaxMs)}`,
	`answer < 1 s, ≤ ${recovery.endpointPacePerSecond}/s, p99 ≤ 1.3 × idle draining and recovered: ${recovery.answerMs < 1000 && recovery.deliveriesPerSecond <= recovery.endpointPacePerSecond && drainRatio <= 1.3 && p99Ratio <= 1.3 ? 'met' : 'MISSED'}`,
);

const fairnessOptions = SMOKE
	? { stuckEndpoints: 4, recovered: 400, rounds: 1, windowMs: 2_000, ratePerSecond: 100 }
	: { stuckEndpoints: 20, recovered: 100_000, rounds: 3, windowMs: 20_000, ratePerSecond: 200 };
console.error(
	`one organization's ${fairnessOptions.stuckEndpoints} never-answering endpoints recovering ${fairnessOptions.recovered.toLocaleString('en')} deliveries while another's are delivered (${fairnessOptions.rounds} interleaved rounds of ${fairnessOptions.windowMs / 1000} s against the same load with nothing recovered)…`,
);
const fairness = await benchWebhookFairness(fairnessOptions);
const otherRatio = fairness.other.recoveryP99Ms / fairness.other.idleP99Ms;
const requestsRatio = fairness.requests.recoveryP99Ms / fairness.requests.idleP99Ms;
add(
	`webhook fairness, ${fairness.recovered.toLocaleString('en')} deliveries recovered to ${fairness.stuckEndpoints} endpoints that never answer`,
	`recover answered in ${ms(Math.round(fairness.recoverAnswerMs))}; another organization's deliveries p50 ${ms(fairness.other.recoveryP50Ms)} / p99 ${ms(fairness.other.recoveryP99Ms)} against ${ms(fairness.other.idleP50Ms)} / ${ms(fairness.other.idleP99Ms)} idle (p99 ${otherRatio.toFixed(2)} ×); other requests' p99 ${fairness.requests.recoveryP99Ms.toFixed(1)} ms against ${fairness.requests.idleP99Ms.toFixed(1)} ms idle (${requestsRatio.toFixed(2)} ×)`,
	`other deliveries p99 ≤ 2 × idle and p50 < 1 s, requests p99 ≤ 2 × idle: ${otherRatio <= 2 && fairness.other.recoveryP50Ms < 1000 && requestsRatio <= 2 ? 'met' : 'MISSED'}`,
);

const observabilityOptions = SMOKE
	? {
			rounds: 1,
			seconds: 1,
			warmUpSeconds: 1,
			deliveryWarmUpSeconds: 1,
			connections: 10,
			sessions: 1_000,
			backlog: 40_000,
		}
	: {
			// Twelve servers of each mode: each keeps a speed of its own for its life, up to a few per
			// cent from another alike (observability.mts), so more servers steady the ratio, where more
			// readings of the same ones would not.
			rounds: 6,
			seconds: 3,
			warmUpSeconds: 8,
			deliveryWarmUpSeconds: 30,
			connections: 10,
			sessions: 10_000,
			// 30 s of warm-up and 6 s of readings each, at up to 9,000 a second of running.
			backlog: 400_000,
		};
console.error(
	`metrics (scraped every second) and traces (exported) on, against off: ${observabilityOptions.rounds} rounds of four fresh servers, two of each, read in pairs that take turns on one CPU, ${observabilityOptions.seconds} s a reading, per request cell at ${observabilityOptions.connections} connections and of delivery from a backlog of ${observabilityOptions.backlog.toLocaleString('en')} to each, after ${observabilityOptions.warmUpSeconds} s of warm-up on each (${observabilityOptions.deliveryWarmUpSeconds} s for delivery)…`,
);
/** Each kind of thread's µs a request or delivery, off → on, where either spent any (Linux). */
const cpuOffToOn = ({ off, on }: ObservabilityRow['cpu'], each: string) => {
	const spent = THREAD_KINDS.filter((kind) => off[kind] + on[kind] >= 0.005);
	return spent.length === 0
		? ''
		: `; CPU a ${each}, off → on: ${spent.map((kind) => `${kind} ${off[kind].toFixed(2)} → ${on[kind].toFixed(2)} µs`).join(', ')}`;
};
for (const row of await benchObservability(observabilityOptions)) {
	const ratio = row.on / row.off;
	const delivery = row.cell === 'webhook delivery';
	const bound = delivery ? 0.95 : 0.97;
	add(
		`metrics and traces on: ${row.cell}${delivery ? '' : `, ${observabilityOptions.connections} conn.`}`,
		`${row.on.toLocaleString('en')} ${delivery ? 'deliveries' : 'req'}/s on, ${row.off.toLocaleString('en')} off (${ratio.toFixed(3)} ×); two servers off read ${row.apart.off.toFixed(3)} × apart, two on ${row.apart.on.toFixed(3)} ×${cpuOffToOn(row.cpu, delivery ? 'delivery' : 'request')}`,
		`≥ ${bound} × off: ${ratio >= bound ? 'met' : 'MISSED'}`,
	);
}

console.error(
	`n8n package: signature verification, an Activity Trigger poll, bulk creation through the node (n8n-core) at ${SMOKE ? '10 requests / 1 s' : '600 requests / 60 s'}…`,
);
const resultFile = join(tmpdir(), `traininglab-bench-node-${process.pid}.json`);
const jest = spawnSync(
	join(ROOT, 'node_modules', '.bin', 'jest'),
	['-c', 'jest.bench.config.cjs', 'bench/nodes.bench.ts'],
	{
		cwd: ROOT,
		env: { ...process.env, BENCH_RESULT_FILE: resultFile, ...(SMOKE ? { BENCH_SMOKE: '1' } : {}) },
		encoding: 'utf8',
	},
);
if (jest.status !== 0)
	throw new Error(`n8n package benchmarks failed:\n${jest.stdout}\n${jest.stderr}`);
const { signature, bulk, activityPoll } = JSON.parse(readFileSync(resultFile, 'utf8'));
rmSync(resultFile);
add(
	`trigger signature verification, ${signature.bodyBytes} B`,
	`${signature.microseconds.toFixed(1)} µs`,
	`< 20 µs: ${signature.microseconds < 20 ? 'met' : 'MISSED'}`,
);
add(
	`bulk creation through the node, ${bulk.sessions} sessions`,
	`${bulk.seconds.toFixed(1)} s for ${bulk.requests} requests (${bulk.rateLimited} × 429 waited out); ideal ${bulk.idealSeconds.toFixed(1)} s → ${bulk.ratio.toFixed(2)} ×; ${bulk.failures} failures, ${bulk.duplicates} duplicates`,
	`≤ 1.1 × ideal, 0 failures, 0 duplicates: ${bulk.ratio <= 1.1 && bulk.failures === 0 && bulk.duplicates === 0 ? 'met' : 'MISSED'}`,
);

add(
	`Activity Trigger poll, 1 of 22 event types selected, ${activityPoll.eventsBetweenPolls.toLocaleString('en')} events since the last poll`,
	`${median(activityPoll.requests)} requests, ${Math.round(median(activityPoll.milliseconds))} ms (medians of ${activityPoll.requests.length} polls); ${activityPoll.emitted} items emitted`,
	`≤ 2 requests: ${median(activityPoll.requests) <= 2 ? 'met' : 'MISSED'}`,
);

console.error('the web console in Chromium: weight, and time to a usable page, cold and warm…');
const consoleOptions = SMOKE ? { rounds: 1, members: 5 } : { rounds: 15, members: 100 };
const consoleResult = await benchConsole(consoleOptions);
add(
	'web console, its whole build',
	`${consoleResult.files} files, ${kb(consoleResult.bytes)} (${kb(consoleResult.gzipBytes)} gzipped); ${consoleResult.requests} requests until Members is drawn`,
	`< 100 KB gzipped: ${consoleResult.gzipBytes < 100_000 ? 'met' : 'MISSED'}`,
);
for (const [what, result] of [
	['sign-in page usable (navigation → key field focused)', consoleResult.signInUsableMs],
	[
		`Members usable, ${consoleOptions.members + 3} rows (Sign in → table drawn)`,
		consoleResult.membersUsableMs,
	],
] as const)
	add(
		`web console, ${what}`,
		`cold ${ms(result.cold)}, warm ${ms(result.warm)} (warm/cold ${(result.warm / result.cold).toFixed(2)})`,
		`cold < 1000 ms: ${result.cold < 1000 ? 'met' : 'MISSED'}`,
	);

console.log(
	`\nNode ${process.version}, ${cpus().length} × ${cpus()[0].model}; ${Math.round((Date.now() - started) / 1000)} s in all${SMOKE ? '; smoke run: sizes too small for the figures to mean anything, targets not judged' : ''}\n`,
);
console.log('| benchmark | result | target |\n|---|---|---|');
for (const row of rows)
	console.log(`| ${row.benchmark} | ${row.result} | ${SMOKE ? 'not judged' : row.target} |`);
