import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
	api,
	bootstrap,
	percentile,
	ROOT,
	startReceiver,
	startServerProcess,
	tempDir,
} from './support.mts';

// `npm run bench:soak`: the API server under a steady mixed load — reads, session creations, members
// added and removed (each removal a webhook delivery to a local receiver) — at SOAK_RATE requests a
// second (40), measured for SOAK_MINUTES (10) once the server has reached its steady state. The
// warm-up is the same load, not measured, until RSS has grown less than 2 % over the last
// SOAK_STEADY_S seconds (480), but at least SOAK_WARMUP_MIN_S (1200) and at most SOAK_WARMUP_MAX_S
// (2400): V8 compiles the hot paths (p99 falls by ~35 % over the first minutes), sizes its young and
// old generations in steps (the last one came at minute 20 in one run, 23 in another), and SQLite's
// page cache fills to its 16 MB as the database outgrows it (docs/performance.md). A leak never
// levels off: the warm-up then ends at its maximum and the measurement shows the growth.
// Compares the last minute with the first: memory (RSS), open file descriptors, p99 latency, the V8
// heap still live after a full GC (what a leak makes grow), and the server's event-loop delay (p99 of
// each second); the last two measured inside the server by bench/soak-probe.mjs. Prints memory minute
// by minute too. SOAK_KEEP=1 keeps the database and the probe's records. A benchmark, not a test: it
// reports.
const minutes = Number(process.env.SOAK_MINUTES ?? 10);
const rate = Number(process.env.SOAK_RATE ?? 40);
const warmup = {
	minMs: Number(process.env.SOAK_WARMUP_MIN_S ?? 1200) * 1000,
	maxMs: Number(process.env.SOAK_WARMUP_MAX_S ?? 2400) * 1000,
	steadyMs: Number(process.env.SOAK_STEADY_S ?? 480) * 1000,
};
const measuredMs = minutes * 60_000;

const dir = tempDir('soak');
const probeFile = join(dir, 'event-loop.jsonl');
const databasePath = join(dir, 'db.sqlite');
const boot = bootstrap(databasePath);
const receiver = await startReceiver();
const server = await startServerProcess({
	DATABASE_PATH: databasePath,
	WEBHOOK_ALLOW_INSECURE_URLS: 'true',
	RATE_LIMIT_REQUESTS: '100000000',
	NODE_OPTIONS: `--import ${join(ROOT, 'bench', 'soak-probe.mjs')}`,
	SOAK_PROBE_FILE: probeFile,
});
const pid = server.child.pid!;
const url = server.url;
const key = boot.api_key;
const orgId = boot.org.id;

await api(`${url}/orgs/${orgId}/webhooks`, key, 'POST', {
	url: `${receiver.url}/soak`,
	event_types: ['member.removed', 'session.created'],
});
const labs = await api(`${url}/labs`, key, 'GET');
const versions = await api(`${url}/labs/${labs[0].id}/versions`, key, 'GET');
const versionId = versions.find((version: { status: string }) => version.status === 'published').id;

/** One request of the mix, by its share: reads 60 %, session creations 25 %, a member added then removed 15 %. */
let sequence = 0;
async function oneRequest(): Promise<void> {
	const n = sequence++;
	const pick = n % 20;
	if (pick < 12) {
		const reads = [
			`${url}/sessions?limit=50`,
			`${url}/me`,
			`${url}/labs`,
			`${url}/orgs/${orgId}/events?limit=50`,
		];
		await api(reads[n % reads.length], key, 'GET');
	} else if (pick < 17) {
		await api(`${url}/sessions`, key, 'POST', {
			title: `Soak ${n}`,
			lab_version_id: versionId,
			capacity: 10,
		});
	} else {
		const member = await api(`${url}/orgs/${orgId}/members`, key, 'POST', {
			email: `soak-${n}@bench.test`,
			name: `Soak ${n}`,
			role: 'trainer',
		});
		await api(`${url}/orgs/${orgId}/members/${member.user_id}`, key, 'DELETE');
	}
}

interface Sample {
	at: number;
	rssMb: number;
	/** The part of RSS that is the process's own memory (not mapped files such as the node binary). */
	anonMb: number;
	fds: number;
}
const latencies: Array<{ at: number; ms: number }> = [];
const samples: Sample[] = [];
let errors = 0;
let inFlight = 0;

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
/** Mean RSS over the minute that ends at `at` (NaN before the first sample). */
const rssOfMinuteTo = (at: number) =>
	mean(samples.filter((s) => s.at > at - 60_000 && s.at <= at).map((s) => s.rssMb));

const started = Date.now();
/** When the measurement began: the end of the warm-up. */
let measured: number | undefined;
let steady = false;
const liveHeapChecks: NodeJS.Timeout[] = [];

/** Ends the warm-up once RSS has levelled off (or the warm-up has lasted its maximum). */
function measureOnceSteady(now: number): void {
	const warmedFor = now - started;
	if (measured !== undefined || warmedFor < warmup.minMs) return;
	steady = rssOfMinuteTo(now) <= 1.02 * rssOfMinuteTo(now - warmup.steadyMs);
	if (!steady && warmedFor < warmup.maxMs) return;
	measured = now;
	// The live heap (after a full GC the probe forces on SIGUSR2), half-way through the first measured
	// minute and the last.
	for (const at of [30_000, measuredMs - 30_000])
		liveHeapChecks.push(setTimeout(() => process.kill(pid, 'SIGUSR2'), at));
}

const sampler = setInterval(() => {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)![1]);
	const now = Date.now();
	samples.push({
		at: now,
		rssMb: kb('VmRSS') / 1024,
		anonMb: kb('RssAnon') / 1024,
		fds: readdirSync(`/proc/${pid}/fd`).length,
	});
	measureOnceSteady(now);
}, 5_000);
const progress = setInterval(() => {
	const minute = (at: number) => Math.round((Date.now() - at) / 60_000);
	const phase =
		measured === undefined
			? `warming up for ${minute(started)} min`
			: `measuring for ${minute(measured)} of ${minutes} min`;
	console.error(`  ${phase}, ${latencies.length} requests, ${errors} errors`);
}, 60_000);

// A steady rate: one request every 1000/rate ms, whatever the answers take (at most 200 in flight).
await new Promise<void>((resolve) => {
	const ticker = setInterval(() => {
		if (measured !== undefined && Date.now() - measured >= measuredMs) {
			clearInterval(ticker);
			resolve();
			return;
		}
		if (inFlight >= 200) return;
		inFlight++;
		const sent = performance.now();
		oneRequest()
			.then(
				() => latencies.push({ at: Date.now(), ms: performance.now() - sent }),
				() => errors++,
			)
			.finally(() => inFlight--);
	}, 1000 / rate);
});
clearInterval(sampler);
clearInterval(progress);
for (const check of liveHeapChecks) clearTimeout(check);
while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 50));

const probe = readFileSync(probeFile, 'utf8')
	.trim()
	.split('\n')
	.map(
		(line) =>
			JSON.parse(line) as {
				at: number;
				p99?: number;
				heapMb?: number;
				heapTotalMb?: number;
				externalMb?: number;
				liveHeapMb?: number;
			},
	);
const perSecond = probe.filter((record) => record.p99 !== undefined) as Array<
	Required<Omit<(typeof probe)[number], 'liveHeapMb'>>
>;
const liveHeap = probe.filter((record) => record.liveHeapMb !== undefined);
const measuredFrom = measured!;
const ended = measuredFrom + measuredMs;
const firstMinute = (at: number) => at >= measuredFrom && at < measuredFrom + 60_000;
const lastMinute = (at: number) => at >= ended - 60_000 && at < ended;

const metrics = [
	{
		name: 'memory (RSS, MB, mean)',
		of: (window: (at: number) => boolean) =>
			mean(samples.filter((s) => window(s.at)).map((s) => s.rssMb)),
	},
	{
		name: 'open file descriptors (mean)',
		of: (window: (at: number) => boolean) =>
			mean(samples.filter((s) => window(s.at)).map((s) => s.fds)),
	},
	{
		name: 'request latency p99 (ms)',
		of: (window: (at: number) => boolean) =>
			percentile(
				latencies.filter((l) => window(l.at)).map((l) => l.ms),
				99,
			),
	},
	{
		name: 'V8 heap live after a full GC (MB)',
		of: (window: (at: number) => boolean) =>
			mean(liveHeap.filter((e) => window(e.at)).map((e) => e.liveHeapMb!)),
	},
	{
		name: 'event-loop delay p99 (ms, mean of each second)',
		of: (window: (at: number) => boolean) =>
			mean(perSecond.filter((e) => window(e.at)).map((e) => e.p99)),
	},
];

// Memory and request p99 minute by minute, warm-up included: a leak climbs all along; caches and a
// heap settling to their sizes level off; the p99s show how far one minute's moves from the next.
const trend: string[] = [];
const p99s: string[] = [];
// Whole minutes back from the end of the warm-up, then forward to the end.
const firstFrom = measuredFrom - Math.floor((measuredFrom - started) / 60_000) * 60_000;
for (let from = firstFrom; from + 60_000 <= ended; from += 60_000) {
	if (from === measuredFrom) for (const line of [trend, p99s]) line.push('|');
	const inMinute = (at: number) => at >= from && at < from + 60_000;
	const ofSamples = (pick: (s: Sample) => number) =>
		mean(samples.filter((s) => inMinute(s.at)).map(pick)).toFixed(0);
	const ofProbe = (pick: (e: (typeof perSecond)[number]) => number) =>
		mean(perSecond.filter((e) => inMinute(e.at)).map(pick)).toFixed(0);
	trend.push(
		`${ofSamples((s) => s.rssMb)}/${ofSamples((s) => s.anonMb)}/${ofProbe((e) => e.heapTotalMb)}/${ofProbe((e) => e.heapMb)}/${ofProbe((e) => e.externalMb)}`,
	);
	p99s.push(
		percentile(
			latencies.filter((l) => inMinute(l.at)).map((l) => l.ms),
			99,
		).toFixed(1),
	);
}

await server.stop();
receiver.server.close();
if (!process.env.SOAK_KEEP) rmSync(dir, { recursive: true, force: true });

console.log(
	`\nSoak: ${minutes} min at ${rate} requests/s after ${((measuredFrom - started) / 60_000).toFixed(1)} min of warm-up, ${steady ? `ended when RSS had grown less than 2 % in ${warmup.steadyMs / 60_000} min` : 'ended at its maximum: RSS still growing'} (${latencies.length} requests, ${errors} errors, ${receiver.arrivals.length} webhook deliveries received)\n`,
);
console.log(
	`Memory in MB, minute by minute (| where the warm-up ends), as RSS/its anonymous part/V8 heap committed/V8 heap in use/external to V8: ${trend.join(' ')}\n`,
);
console.log(`Request latency p99 in ms, minute by minute: ${p99s.join(' ')}\n`);
console.log('| metric | first minute | last minute | change | within 10 % |');
console.log('|---|---|---|---|---|');
for (const metric of metrics) {
	const first = metric.of(firstMinute);
	const last = metric.of(lastMinute);
	const change = (last - first) / first;
	console.log(
		`| ${metric.name} | ${first.toFixed(2)} | ${last.toFixed(2)} | ${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)} % | ${Math.abs(change) <= 0.1 ? 'yes' : 'NO'} |`,
	);
}
