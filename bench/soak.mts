import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { delayMs, eventLoopHistogram } from './event-loop-delay.mts';
import {
	api,
	bootstrap,
	eventually,
	keepAliveApi,
	percentile,
	ROOT,
	startReceiver,
	startServerProcess,
	tempDir,
} from './support.mts';

// `npm run bench:soak`: the API server under a steady mixed load — reads, session creations, members
// added and removed (each creation and removal a webhook delivery to a local receiver) — at SOAK_RATE
// steps of the mix a second (150; 172 requests, a member's step being two), measured for SOAK_MINUTES
// (10) once the server has reached its steady state. The warm-up is the same load, not measured,
// until RSS has grown less than 2 % over the last SOAK_STEADY_S seconds (480), but at least
// SOAK_WARMUP_MIN_S (1200) and at most SOAK_WARMUP_MAX_S (2400): V8 compiles the hot paths (p99 falls
// by ~35 % over the first minutes), sizes its young and old generations in steps (the last one came
// at minute 15 or 16 in runs at 150 steps a second, 19 to 23 at 40), and SQLite's page cache fills to
// its 16 MB as the database outgrows it (docs/performance.md). A leak never levels off: the warm-up
// then ends at its maximum and the measurement shows the growth.
// Compares the last minute with the first: memory (RSS), open file descriptors, request p99 inside
// the server and as the client sees it, the server's event-loop delay (p99 of each second), and the V8
// heap still live after a full GC (what a leak makes grow; forced just before the measurement and just
// after it, so that the pause falls in neither minute). Beside each comparison: the lowest and highest
// of the measured minutes, the rise of the least-squares line through them — a leak or a slowing
// server climbs, where a first or last minute that the machine made slow or fast moves it little —
// and how many pairs of them lie over 10 % apart: the machine's noise, against which the verdict is
// read.
// What happens inside the server is measured by bench/soak-probe.mjs. The p99 inside the server is
// the server's own latency from a request's arrival; the client's adds the time a request waits for
// the server's busy event loop, the network and the load generator, which also receives the
// deliveries. The server's main thread runs alone on one core, the rest on the other (SOAK_PIN=0: all
// share both). Prints minute by minute too: memory, the client's p99, the server's p50 and p99 and
// its main thread's CPU time per request, the machine's speed (bench/soak-calibrator.mts), the load
// generator's own event-loop delay, and how long the server, the load generator and the machine
// waited for a CPU;
// then each second the event loop stopped for over 100 ms with what else that second held (GC, CPU,
// steal, disk wait), each system call the server's main thread was blocked in for 100 ms or more, and
// the WAL's largest size. SOAK_KEEP=1 keeps the database, the probe's records and the client's
// latencies. A benchmark, not a test: it reports.
const minutes = Number(process.env.SOAK_MINUTES ?? 10);
const rate = Number(process.env.SOAK_RATE ?? 150);
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
const receiver = await startReceiver({ recordArrivals: false });
const server = await startServerProcess({
	DATABASE_PATH: databasePath,
	WEBHOOK_ALLOW_INSECURE_URLS: 'true',
	RATE_LIMIT_REQUESTS: '100000000',
	NODE_OPTIONS: `--import ${join(ROOT, 'bench', 'soak-probe.mjs')}`,
	SOAK_PROBE_FILE: probeFile,
});
const pid = server.child.pid!;
// The server's main thread alone on one core (with the calibrator below); its other threads (the
// checkpoint worker, V8's helpers) and the load generator (with the receiver) on the other. Sharing
// both cores, the main thread waited for a CPU 47–61 ms of every second, most of it behind the load
// generator; with the whole server on one core, 5–17 ms; alone, 2–5. SOAK_PIN=0 shares them.
const pinned = process.env.SOAK_PIN !== '0' && availableParallelism() >= 2;
/** Pins a process's threads (all of them, or only its main thread) to one CPU. */
const pin = (cpu: number, of: number, threads: 'all' | 'main' = 'all') =>
	execFileSync('taskset', [
		...(threads === 'all' ? ['--all-tasks'] : []),
		'--cpu-list',
		'--pid',
		String(cpu),
		String(of),
	]);
if (pinned) {
	pin(1, pid);
	pin(0, pid, 'main');
	pin(1, process.pid);
}
// The machine's speed, each second: how long a fixed piece of work took on the server's core
// (bench/soak-calibrator.mts).
const calibration: Array<{ at: number; ms: number }> = [];
const calibrator = spawn(process.execPath, [join(ROOT, 'bench', 'soak-calibrator.mts')], {
	stdio: ['ignore', 'pipe', 'inherit'],
});
createInterface({ input: calibrator.stdout }).on('line', (line) =>
	calibration.push(JSON.parse(line)),
);
if (pinned) pin(0, calibrator.pid!);
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

const KINDS = ['read', 'session created', 'member added', 'member removed'] as const;
type Kind = (typeof KINDS)[number];
/**
 * Every request's latency as the client sees it, in typed arrays: their memory is outside V8's heap.
 * 400,000 objects in an array made the load generator's own garbage collections, and with them the
 * latency it measures, grow through the run (the client's p99 climbed from 4 to 10 ms while the
 * server's held at 2).
 */
class LatencyLog {
	length = 0;
	private at = new Float64Array(1 << 16);
	private ms = new Float32Array(1 << 16);
	private kind = new Uint8Array(1 << 16);
	push(at: number, ms: number, kind: Kind): void {
		if (this.length === this.at.length) {
			this.at = doubled(this.at);
			this.ms = doubled(this.ms);
			this.kind = doubled(this.kind);
		}
		this.at[this.length] = at;
		this.ms[this.length] = ms;
		this.kind[this.length] = KINDS.indexOf(kind);
		this.length++;
	}
	/** The latencies (ms) of the requests answered in `window`. */
	within(window: (at: number) => boolean): number[] {
		const found: number[] = [];
		for (let i = 0; i < this.length; i++) if (window(this.at[i])) found.push(this.ms[i]);
		return found;
	}
	toJSON() {
		return Array.from({ length: this.length }, (_, i) => ({
			at: this.at[i],
			ms: this.ms[i],
			kind: KINDS[this.kind[i]],
		}));
	}
}
function doubled<T extends Float64Array | Float32Array | Uint8Array>(from: T): T {
	const to = new (from.constructor as new (length: number) => T)(from.length * 2);
	to.set(from);
	return to;
}
const latencies = new LatencyLog();

// Each second: the load generator's own event-loop delay (p99), what its share of the client's
// latency comes from; how long its main thread waited, ready to run, for a CPU; and how long any task
// on the machine did (the kernel's CPU pressure, "some"): a machine busy with something else shows
// there, where a slower server shows in neither.
const clientLoop = eventLoopHistogram();
/** Nanoseconds the load generator's main thread has waited, ready to run, for a CPU. */
const clientWaiting = () => Number(readFileSync('/proc/self/schedstat', 'utf8').split(' ')[1]);
/** Microseconds in which at least one task on the machine waited for a CPU (kernels with PSI). */
const cpuPressure = () => {
	const some = readFileSync('/proc/pressure/cpu', 'utf8').split('\n')[0];
	return Number(/total=(\d+)/.exec(some)![1]);
};
const hasPressure = existsSync('/proc/pressure/cpu');
const clientSeconds: Array<{ at: number; loopP99: number; waitingMs: number; pressureMs: number }> =
	[];
let lastWaiting = clientWaiting();
let lastPressure = hasPressure ? cpuPressure() : 0;
const clientLoopSampler = setInterval(() => {
	const waiting = clientWaiting();
	const pressure = hasPressure ? cpuPressure() : 0;
	clientSeconds.push({
		at: Date.now(),
		loopP99: delayMs(clientLoop.percentile(99)),
		waitingMs: (waiting - lastWaiting) / 1e6,
		pressureMs: hasPressure ? (pressure - lastPressure) / 1e3 : NaN,
	});
	lastWaiting = waiting;
	lastPressure = pressure;
	clientLoop.reset();
}, 1000);
const client = keepAliveApi(key);
/** One request, its latency recorded as the client sees it (sent to answer read, not parsed). */
async function timed(kind: Kind, url: string, method: string, body?: unknown) {
	const sent = performance.now();
	const answer = await client.call(url, method, body);
	latencies.push(Date.now(), performance.now() - sent, kind);
	return answer;
}

/** Requests a step of the mix makes on average: a member's step (3 in 20) is two. */
const requestsPerStep = 23 / 20;
/** One step of the mix, by its share: reads 60 %, session creations 25 %, a member added then removed 15 %. */
let sequence = 0;
async function oneStep(): Promise<void> {
	const n = sequence++;
	const pick = n % 20;
	if (pick < 12) {
		const reads = [
			`${url}/sessions?limit=50`,
			`${url}/me`,
			`${url}/labs`,
			`${url}/orgs/${orgId}/events?limit=50`,
		];
		await timed('read', reads[n % reads.length], 'GET');
	} else if (pick < 17) {
		await timed('session created', `${url}/sessions`, 'POST', {
			title: `Soak ${n}`,
			lab_version_id: versionId,
			capacity: 10,
		});
	} else {
		const member = JSON.parse(
			await timed('member added', `${url}/orgs/${orgId}/members`, 'POST', {
				email: `soak-${n}@bench.test`,
				name: `Soak ${n}`,
				role: 'trainer',
			}),
		);
		await timed('member removed', `${url}/orgs/${orgId}/members/${member.user_id}`, 'DELETE');
	}
}

interface Sample {
	at: number;
	rssMb: number;
	/** The part of RSS that is the process's own memory (not mapped files such as the node binary). */
	anonMb: number;
	fds: number;
}
const samples: Sample[] = [];
let errors = 0;
/** The first errors, each with when it came (minutes from the start), printed at the end. */
const firstErrors: string[] = [];
let inFlight = 0;

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
/** Mean RSS over the minute that ends at `at` (NaN before the first sample). */
const rssOfMinuteTo = (at: number) =>
	mean(samples.filter((s) => s.at > at - 60_000 && s.at <= at).map((s) => s.rssMb));

const started = Date.now();
/** When the measurement began: the end of the warm-up. */
let measured: number | undefined;
let steady = false;

/** Ends the warm-up once RSS has levelled off (or the warm-up has lasted its maximum). */
function measureOnceSteady(now: number): void {
	const warmedFor = now - started;
	if (measured !== undefined || warmedFor < warmup.minMs) return;
	steady = rssOfMinuteTo(now) <= 1.02 * rssOfMinuteTo(now - warmup.steadyMs);
	if (!steady && warmedFor < warmup.maxMs) return;
	// The live heap (after a full GC the probe forces on SIGUSR2) just before the measurement, and
	// again just after it, so that the GC's pause falls in neither minute compared (the measurement
	// starts 2 s after the signal).
	process.kill(pid, 'SIGUSR2');
	measured = now + 2_000;
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

// A steady rate: one step of the mix every 1000/rate ms, whatever the answers take (at most 200 in
// flight); requests run at requestsPerStep × rate a second.
await new Promise<void>((resolve) => {
	const ticker = setInterval(() => {
		if (measured !== undefined && Date.now() - measured >= measuredMs) {
			clearInterval(ticker);
			resolve();
			return;
		}
		if (inFlight >= 200) return;
		inFlight++;
		oneStep()
			.catch((error: Error) => {
				if (++errors <= 10)
					firstErrors.push(
						`${((Date.now() - started) / 60_000).toFixed(1)} min: ${error.message} ${(error as NodeJS.ErrnoException).code ?? ''}`,
					);
			})
			.finally(() => inFlight--);
	}, 1000 / rate);
});
clearInterval(sampler);
clearInterval(progress);
clearInterval(clientLoopSampler);
while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 50));
process.kill(pid, 'SIGUSR2');

interface ProbeRecord {
	at: number;
	p99?: number;
	heapMb?: number;
	heapTotalMb?: number;
	externalMb?: number;
	requestMs?: number[];
	gcMs?: number;
	longestGcMs?: number;
	onCpuMs?: number;
	waitingForCpuMs?: number;
	stealMs?: number;
	ioWaitMs?: number;
	walMb?: number;
	max?: number;
	liveHeapMb?: number;
	blockedIn?: string;
	blockedMs?: number;
}
const readProbe = () =>
	readFileSync(probeFile, 'utf8')
		.trim()
		.split('\n')
		.map((line) => JSON.parse(line) as ProbeRecord);
// The live heap measured once before the measurement and once after it.
const probe = await eventually(() => {
	const records = readProbe();
	return records.filter((record) => record.liveHeapMb !== undefined).length === 2 && records;
}, 'the live heap after the measurement');
const perSecond = probe.filter((record) => record.p99 !== undefined) as Array<
	Required<Omit<ProbeRecord, 'liveHeapMb' | 'blockedIn' | 'blockedMs'>>
>;
const [liveHeapBefore, liveHeapAfter] = probe
	.filter((record) => record.liveHeapMb !== undefined)
	.map((record) => record.liveHeapMb!);
const measuredFrom = measured!;
const ended = measuredFrom + measuredMs;
type Window = (at: number) => boolean;
const minuteFrom =
	(from: number): Window =>
	(at) =>
		at >= from && at < from + 60_000;
const firstMinute = minuteFrom(measuredFrom);
const lastMinute = minuteFrom(ended - 60_000);

const clientP99 = (window: Window) => percentile(latencies.within(window), 99);
const serverP99 = (window: Window) =>
	percentile(
		perSecond.filter((e) => window(e.at)).flatMap((e) => e.requestMs),
		99,
	);
/** The calibrator's fixed piece of work in ms (median): larger is a slower machine. */
const machineMs = (window: Window) =>
	percentile(
		calibration.filter((c) => window(c.at)).map((c) => c.ms),
		50,
	);
/** The measured minutes, one window each. */
const measuredMinutes = Array.from({ length: minutes }, (_, i) =>
	minuteFrom(measuredFrom + i * 60_000),
);
/**
 * The rise of the least-squares line through one value a minute, from the first minute to the last,
 * as a share of their mean: what a leak or a slowing server shows, where the first and last minutes
 * alone also carry how far any one minute moves from the next.
 */
function trendOf(values: number[]): number {
	const middle = (values.length - 1) / 2;
	const average = mean(values);
	let covariance = 0;
	let variance = 0;
	values.forEach((value, minute) => {
		covariance += (minute - middle) * (value - average);
		variance += (minute - middle) ** 2;
	});
	return ((covariance / variance) * (values.length - 1)) / average;
}
/**
 * How many of the pairs of measured minutes lie more than 10 % apart (the later against the earlier):
 * how often this machine alone would fail a comparison of two minutes of a server that does not
 * change — the noise the first-against-last verdict is read against.
 */
function pairsOver10Percent(values: number[]): string {
	let over = 0;
	let pairs = 0;
	values.forEach((earlier, i) =>
		values.slice(i + 1).forEach((later) => {
			pairs++;
			if (Math.abs(later / earlier - 1) > 0.1) over++;
		}),
	);
	return `${over} of ${pairs}`;
}
/** Pearson's correlation of two series, over the places where both have a value. */
function correlation(allXs: number[], allYs: number[]): number {
	const both = allXs.flatMap((x, i) =>
		Number.isFinite(x) && Number.isFinite(allYs[i]) ? [[x, allYs[i]]] : [],
	);
	const [xs, ys] = [both.map(([x]) => x), both.map(([, y]) => y)];
	const [mx, my] = [mean(xs), mean(ys)];
	let [sxy, sxx, syy] = [0, 0, 0];
	xs.forEach((x, i) => {
		sxy += (x - mx) * (ys[i] - my);
		sxx += (x - mx) ** 2;
		syy += (ys[i] - my) ** 2;
	});
	return sxy / Math.sqrt(sxx * syy);
}
const metrics: Array<{ name: string; first: number; last: number; perMinute?: number[] }> = [
	...[
		{
			name: 'memory (RSS, MB, mean)',
			of: (window: Window) => mean(samples.filter((s) => window(s.at)).map((s) => s.rssMb)),
		},
		{
			name: 'open file descriptors (mean)',
			of: (window: Window) => mean(samples.filter((s) => window(s.at)).map((s) => s.fds)),
		},
		{ name: 'request latency p99 as the client sees it (ms)', of: clientP99 },
		{ name: 'request latency p99 inside the server (ms)', of: serverP99 },
		{
			name: 'event-loop delay p99 (ms, mean of each second)',
			of: (window: Window) => mean(perSecond.filter((e) => window(e.at)).map((e) => e.p99)),
		},
	].map(({ name, of }) => ({
		name,
		first: of(firstMinute),
		last: of(lastMinute),
		perMinute: measuredMinutes.map(of),
	})),
	{
		name: 'V8 heap live after a full GC (MB; before and after the measurement)',
		first: liveHeapBefore,
		last: liveHeapAfter,
	},
];

// Memory and request p99 minute by minute, warm-up included: a leak climbs all along; caches and a
// heap settling to their sizes level off; the p99s show how far one minute's moves from the next.
const byMinute = {
	memory: [] as string[],
	clientP99: [] as string[],
	serverLatency: [] as string[],
	cpuPerRequest: [] as string[],
	machine: [] as string[],
	clientLoopP99: [] as string[],
	waitingForCpu: [] as string[],
};
// Whole minutes back from the end of the warm-up, then forward to the end.
const firstFrom = measuredFrom - Math.floor((measuredFrom - started) / 60_000) * 60_000;
for (let from = firstFrom; from + 60_000 <= ended; from += 60_000) {
	if (from === measuredFrom) for (const line of Object.values(byMinute)) line.push('|');
	const inMinute = minuteFrom(from);
	const inServer = perSecond.filter((e) => inMinute(e.at));
	const inClient = clientSeconds.filter((e) => inMinute(e.at));
	const ofSamples = (pick: (s: Sample) => number) =>
		mean(samples.filter((s) => inMinute(s.at)).map(pick)).toFixed(0);
	const ofServer = (pick: (e: (typeof perSecond)[number]) => number) =>
		mean(inServer.map(pick)).toFixed(0);
	const ofClient = (pick: (e: (typeof clientSeconds)[number]) => number) =>
		mean(inClient.map(pick)).toFixed(0);
	const requestMs = inServer.flatMap((e) => e.requestMs);
	const onCpuMs = inServer.reduce((sum, e) => sum + e.onCpuMs, 0);
	byMinute.memory.push(
		`${ofSamples((s) => s.rssMb)}/${ofSamples((s) => s.anonMb)}/${ofServer((e) => e.heapTotalMb)}/${ofServer((e) => e.heapMb)}/${ofServer((e) => e.externalMb)}`,
	);
	byMinute.clientP99.push(clientP99(inMinute).toFixed(1));
	byMinute.serverLatency.push(
		`${percentile(requestMs, 50).toFixed(2)}/${percentile(requestMs, 99).toFixed(1)}`,
	);
	byMinute.cpuPerRequest.push(((onCpuMs / requestMs.length) * 1000).toFixed(0));
	byMinute.machine.push((machineMs(inMinute) * 1000).toFixed(0));
	byMinute.clientLoopP99.push(mean(inClient.map((e) => e.loopP99)).toFixed(1));
	byMinute.waitingForCpu.push(
		`${ofServer((e) => e.waitingForCpuMs)}/${ofClient((e) => e.waitingMs)}/${ofClient((e) => e.pressureMs)}`,
	);
}

client.close();
calibrator.kill();
await server.stop();
receiver.server.close();
if (process.env.SOAK_KEEP) writeFileSync(join(dir, 'latencies.json'), JSON.stringify(latencies));
else rmSync(dir, { recursive: true, force: true });

console.log(
	`\nSoak: ${minutes} min at ${rate} steps/s${pinned ? ", the server's main thread on CPU 0, its other threads and the load generator on CPU 1" : ''} (${(rate * requestsPerStep).toFixed(0)} requests/s) after ${((measuredFrom - started) / 60_000).toFixed(1)} min of warm-up, ${steady ? `ended when RSS had grown less than 2 % in ${warmup.steadyMs / 60_000} min` : 'ended at its maximum: RSS still growing'} (${latencies.length} requests, ${errors} errors, ${receiver.received()} webhook deliveries received)\n`,
);
if (firstErrors.length > 0) console.log(`Errors (the first 10):\n${firstErrors.join('\n')}\n`);
console.log(
	`Memory in MB, minute by minute (| where the warm-up ends), as RSS/its anonymous part/V8 heap committed/V8 heap in use/external to V8: ${byMinute.memory.join(' ')}\n`,
);
console.log(
	`Request latency p99 in ms as the client sees it, minute by minute: ${byMinute.clientP99.join(' ')}\n`,
);
console.log(
	`Request latency in ms inside the server, minute by minute, as p50/p99: ${byMinute.serverLatency.join(' ')}\n`,
);
// The same mix of requests every minute, yet this moved ±30 % from one minute to the next in every
// run, and the calibrator's line below only partly with it (docs/performance.md). (On the CI machine
// steal reads 0 whatever the host does; time it takes from a virtual CPU shows here.)
console.log(
	`The server's main thread on a CPU per request in µs, minute by minute: ${byMinute.cpuPerRequest.join(' ')}\n`,
);
const everyMinute = (line: string[]) => line.filter((value) => value !== '|').map(Number);
console.log(
	`The machine's speed: the calibrator's fixed piece of work on the server's core in µs (median), minute by minute: ${byMinute.machine.join(' ')}; its correlation with the server's CPU time per request over the ${everyMinute(byMinute.machine).length} minutes: ${correlation(everyMinute(byMinute.machine), everyMinute(byMinute.cpuPerRequest)).toFixed(2)}\n`,
);
console.log(
	`The load generator's event-loop delay p99 in ms (mean of each second), minute by minute: ${byMinute.clientLoopP99.join(' ')}\n`,
);
console.log(
	`Waiting for a CPU in ms a second, minute by minute, as the server's main thread/the load generator's/any task on the machine (CPU pressure; NaN without PSI): ${byMinute.waitingForCpu.join(' ')}\n`,
);
// Seconds in which the server's event loop stopped for over 100 ms, with what else that second
// held: the garbage collector's pauses, the main thread's time on a CPU and waiting for one (a stall
// with neither was a blocking system call), the machine's steal and disk wait — what a latency
// outlier of a minute comes from; then each system call the main thread sat blocked in that long.
const stalls = perSecond
	.filter((e) => e.max > 100)
	.map(
		(e) =>
			`${((e.at - started) / 60_000).toFixed(2)} min: ${e.max.toFixed(0)} ms (GC ${e.gcMs.toFixed(0)} ms, longest pause ${e.longestGcMs.toFixed(0)} ms; main thread on a CPU ${e.onCpuMs.toFixed(0)} ms, waiting for one ${e.waitingForCpuMs.toFixed(0)} ms; machine steal ${e.stealMs} ms, disk wait ${e.ioWaitMs} ms)`,
	);
console.log(
	`Event-loop stalls over 100 ms (minutes from the start): ${stalls.length ? stalls.join('; ') : 'none'}\n`,
);
// The WAL file never shrinks: SQLite writes it again from its start once a checkpoint has copied all
// of it. One that keeps growing means checkpoints that never catch up.
const largestWal = (window: Window) =>
	Math.max(...perSecond.filter((e) => window(e.at)).map((e) => e.walMb));
console.log(
	`Largest WAL in MB: ${largestWal((at) => at < measuredFrom)} in the warm-up, ${largestWal(firstMinute)} in the first minute measured, ${largestWal(lastMinute)} in the last\n`,
);
const blocked = probe
	.filter((record) => record.blockedIn !== undefined)
	.map(
		(record) =>
			`${((record.at - started) / 60_000).toFixed(2)} min: ${record.blockedIn} ${record.blockedMs} ms`,
	);
console.log(
	`System calls the main thread was blocked in for 100 ms or more: ${blocked.length ? blocked.join('; ') : 'none'}\n`,
);
if (process.env.SOAK_KEEP) console.log(`Kept: ${dir}\n`);
const signed = (share: number) => `${share >= 0 ? '+' : ''}${(share * 100).toFixed(1)} %`;
console.log(
	`The machine in the last minute against the first: the calibrator's fixed piece of work took ${signed(machineMs(lastMinute) / machineMs(firstMinute) - 1)}\n`,
);
console.log(
	`| metric | first minute | last minute | change | within 10 % | the ${minutes} minutes, lowest–highest | trend over them (least squares) | pairs of them over 10 % apart |`,
);
console.log('|---|---|---|---|---|---|---|---|');
for (const { name, first, last, perMinute } of metrics) {
	const change = (last - first) / first;
	const range = perMinute
		? `${Math.min(...perMinute).toFixed(2)}–${Math.max(...perMinute).toFixed(2)}`
		: '—';
	const drift = perMinute ? signed(trendOf(perMinute)) : '—';
	const apart = perMinute ? pairsOver10Percent(perMinute) : '—';
	console.log(
		`| ${name} | ${first.toFixed(2)} | ${last.toFixed(2)} | ${signed(change)} | ${Math.abs(change) <= 0.1 ? 'yes' : 'NO'} | ${range} | ${drift} | ${apart} |`,
	);
}
