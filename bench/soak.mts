import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { delayMs, eventLoopHistogram } from './event-loop-delay.mts';
import {
	copyDatabase,
	FRESH_WARMUP_MS,
	startFreshServer,
	type FreshServer,
} from './soak-fresh-server.mts';
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
// The latencies again over a control's (bench/soak-fresh-server.mts): beside the soaked server, on
// its core and under the same load half a step later, a fresh server started every minute from the
// database the soaked one started from. The machine's speed moves both alike (their CPU time per
// request follows it within a few per cent), so the soaked server's p99 over the fresh one's, first
// minute against last, reads what the long run changed in the server and not what the machine did.
// What happens inside the server is measured by bench/soak-probe.mjs. The p99 inside the server is
// the server's own latency from a request's arrival; the client's adds the time a request waits for
// the server's busy event loop, the network and the load generator, which also receives the
// deliveries. The two servers' main threads run on one core, the rest on the other (SOAK_PIN=0: all
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
const keep = Boolean(process.env.SOAK_KEEP);
const probeFile = join(dir, 'event-loop.jsonl');
const databasePath = join(dir, 'db.sqlite');
// The database every server of the soak starts from: the soaked one and each fresh control.
const templatePath = join(dir, 'template.sqlite');
const boot = bootstrap(templatePath);
const receiver = await startReceiver({ recordArrivals: false });
const key = boot.api_key;
const orgId = boot.org.id;
const setup = await startServerProcess({
	DATABASE_PATH: templatePath,
	WEBHOOK_ALLOW_INSECURE_URLS: 'true',
});
await api(`${setup.url}/orgs/${orgId}/webhooks`, key, 'POST', {
	url: `${receiver.url}/soak`,
	event_types: ['member.removed', 'session.created'],
});
const labs = await api(`${setup.url}/labs`, key, 'GET');
const versions = await api(`${setup.url}/labs/${labs[0].id}/versions`, key, 'GET');
const versionId = versions.find((version: { status: string }) => version.status === 'published').id;
await setup.stop();
copyDatabase(templatePath, databasePath);

const serverEnv = {
	WEBHOOK_ALLOW_INSECURE_URLS: 'true',
	RATE_LIMIT_REQUESTS: '100000000',
	NODE_OPTIONS: `--import ${join(ROOT, 'bench', 'soak-probe.mjs')}`,
};
const server = await startServerProcess({
	...serverEnv,
	DATABASE_PATH: databasePath,
	SOAK_PROBE_FILE: probeFile,
});
const pid = server.child.pid!;
// The server's main thread on one core (with the fresh control's and the calibrator below); its other
// threads (the checkpoint worker, V8's helpers) and the load generator (with the receiver) on the
// other. Sharing both cores, the main thread waited for a CPU 47–61 ms of every second, most of it
// behind the load generator; with the whole server on one core, 5–17 ms; alone, 2–5; beside the
// control's, 110–150. SOAK_PIN=0 shares them.
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
/** A server's main thread on CPU 0, its other threads on CPU 1 (when pinned). */
const placeServer = (serverPid: number) => {
	if (!pinned) return;
	pin(1, serverPid);
	pin(0, serverPid, 'main');
};
placeServer(pid);
if (pinned) pin(1, process.pid);
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
/** The fresh controls' latencies, as the client sees them. */
const freshLatencies = new LatencyLog();

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
/** One request, its latency recorded in `log` as the client sees it (sent to answer read, not parsed). */
async function timed(log: LatencyLog, kind: Kind, url: string, method: string, body?: unknown) {
	const sent = performance.now();
	const answer = await client.call(url, method, body);
	log.push(Date.now(), performance.now() - sent, kind);
	return answer;
}

/** Requests a step of the mix makes on average: a member's step (3 in 20) is two. */
const requestsPerStep = 23 / 20;
/**
 * The n-th step of the mix at the server at `url`, by its share: reads 60 %, session creations 25 %,
 * a member added then removed 15 %.
 */
async function oneStep(url: string, log: LatencyLog, n: number): Promise<void> {
	const pick = n % 20;
	if (pick < 12) {
		const reads = [
			`${url}/sessions?limit=50`,
			`${url}/me`,
			`${url}/labs`,
			`${url}/orgs/${orgId}/events?limit=50`,
		];
		await timed(log, 'read', reads[n % reads.length], 'GET');
	} else if (pick < 17) {
		await timed(log, 'session created', `${url}/sessions`, 'POST', {
			title: `Soak ${n}`,
			lab_version_id: versionId,
			capacity: 10,
		});
	} else {
		const member = JSON.parse(
			await timed(log, 'member added', `${url}/orgs/${orgId}/members`, 'POST', {
				email: `soak-${n}@bench.test`,
				name: `Soak ${n}`,
				role: 'trainer',
			}),
		);
		await timed(log, 'member removed', `${url}/orgs/${orgId}/members/${member.user_id}`, 'DELETE');
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
function recordError(error: Error, at: string): void {
	if (++errors <= 10)
		firstErrors.push(
			`${((Date.now() - started) / 60_000).toFixed(1)} min, ${at}: ${error.message} ${(error as NodeJS.ErrnoException).code ?? ''}`,
		);
}

// The control (bench/soak-fresh-server.mts): a fresh server beside the soaked one, under the same
// load, started anew every minute. The next one starts 5 s into a minute, in its part left out of
// the comparison, and waits idle for its own.
const freshServers: FreshServer[] = [];
const startFresh = async () => {
	const fresh = await startFreshServer({
		n: freshServers.length,
		template: templatePath,
		dir,
		env: serverEnv,
		place: placeServer,
		keep,
	});
	freshServers.push(fresh);
	return fresh;
};
let fresh = await startFresh();
let nextFresh: Promise<FreshServer> | undefined;
/** Resolves once every request sent to `server` has its answer. */
async function answered(server: { inFlight: number }): Promise<void> {
	while (server.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 50));
}
/** Stops a fresh server once its requests are answered. */
const retiring: Array<Promise<void>> = [];
const retire = (old: FreshServer) => retiring.push(answered(old).then(() => old.stop()));

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
/** Mean RSS over the minute that ends at `at` (NaN before the first sample). */
const rssOfMinuteTo = (at: number) =>
	mean(samples.filter((s) => s.at > at - 60_000 && s.at <= at).map((s) => s.rssMb));

const started = Date.now();
fresh.from = started;
/** When the measurement began: the end of the warm-up, at the start of a fresh server's minute. */
let measured: number | undefined;
let steady = false;
/** Set once the load has ended: no fresh server starts or takes over after it. */
let loadEnded = false;
let preparation: NodeJS.Timeout;
let rotation: NodeJS.Timeout;
const prepareNext = () => (preparation = setTimeout(() => (nextFresh = startFresh()), 5_000));
/** At `minuteStart`, the next fresh server takes the control's load from the current one. */
function rotateAt(minuteStart: number): void {
	rotation = setTimeout(async () => {
		const starting = nextFresh!;
		nextFresh = undefined;
		const next = await starting;
		if (loadEnded) return retire(next);
		const old = fresh;
		fresh = next;
		fresh.from = old.to = minuteStart;
		retire(old);
		prepareNext();
		rotateAt(minuteStart + 60_000);
	}, minuteStart - Date.now());
}
prepareNext();
rotateAt(started + 60_000);

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
	measured = started + Math.ceil((now + 2_000 - started) / 60_000) * 60_000;
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
// flight); requests run at requestsPerStep × rate a second. The same to the fresh control, half a
// step later (two servers sent each step at once had one wait for the other, the same one
// mostly: its p99 read up to 20 % above its twin's).
const done = () => measured !== undefined && Date.now() - measured >= measuredMs;
/** A server the load goes to, and its requests still awaiting an answer. */
interface Target {
	url: string;
	inFlight: number;
}
/** The load on the server `target()` names at each step, until the measurement is done. */
const steadyLoad = (target: () => Target, log: LatencyLog, name: string) =>
	new Promise<void>((resolve) => {
		let sequence = 0;
		const ticker = setInterval(() => {
			if (done()) {
				clearInterval(ticker);
				resolve();
				return;
			}
			const to = target();
			if (to.inFlight >= 200) return;
			to.inFlight++;
			oneStep(to.url, log, sequence++)
				.catch((error: Error) => recordError(error, name))
				.finally(() => to.inFlight--);
		}, 1000 / rate);
	});
const soakedTarget: Target = { url, inFlight: 0 };
const soakedLoad = steadyLoad(() => soakedTarget, latencies, 'soaked server');
await new Promise((resolve) => setTimeout(resolve, 500 / rate));
const freshLoad = steadyLoad(() => fresh, freshLatencies, 'fresh server');
await Promise.all([soakedLoad, freshLoad]);
clearInterval(sampler);
clearInterval(progress);
clearInterval(clientLoopSampler);
loadEnded = true;
clearTimeout(preparation!);
clearTimeout(rotation!);
fresh.to = Date.now();
await answered(soakedTarget);
process.kill(pid, 'SIGUSR2');
retire(fresh);
const starting = nextFresh;
nextFresh = undefined;
if (starting) retire(await starting);

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
type Second = Required<Omit<ProbeRecord, 'liveHeapMb' | 'blockedIn' | 'blockedMs'>>;
const readProbe = (file: string) =>
	readFileSync(file, 'utf8')
		.trim()
		.split('\n')
		.map((line) => JSON.parse(line) as ProbeRecord);
const secondsOf = (records: ProbeRecord[]) =>
	records.filter((record) => record.p99 !== undefined) as Second[];
// The live heap measured once before the measurement and once after it.
const probe = await eventually(() => {
	const records = readProbe(probeFile);
	return records.filter((record) => record.liveHeapMb !== undefined).length === 2 && records;
}, 'the live heap after the measurement');
const perSecond = secondsOf(probe);
/** The fresh servers' seconds, each server's while it had the control's load. */
const freshPerSecond = freshServers.flatMap((server) =>
	secondsOf(readProbe(server.probeFile)).filter((e) => e.at >= server.from && e.at < server.to),
);
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

/** A server's records: its probe's seconds and its latencies as the client saw them. */
interface Side {
	seconds: Second[];
	latencies: LatencyLog;
}
const soaked: Side = { seconds: perSecond, latencies };
const control: Side = { seconds: freshPerSecond, latencies: freshLatencies };
const clientP99 = (window: Window, side = soaked) => percentile(side.latencies.within(window), 99);
const serverP99 = (window: Window, side = soaked) =>
	percentile(
		side.seconds.filter((e) => window(e.at)).flatMap((e) => e.requestMs),
		99,
	);
const eventLoopP99 = (window: Window, side = soaked) =>
	mean(side.seconds.filter((e) => window(e.at)).map((e) => e.p99));
/** The main thread's time on a CPU per request, in µs. */
const cpuPerRequest = (window: Window, side = soaked) => {
	const inWindow = side.seconds.filter((e) => window(e.at));
	const requests = inWindow.reduce((sum, e) => sum + e.requestMs.length, 0);
	return (inWindow.reduce((sum, e) => sum + e.onCpuMs, 0) / requests) * 1000;
};
/** The soaked server's figure over the fresh one's in the same window. */
const againstFresh =
	(of: (window: Window, side: Side) => number) =>
	(window: Window): number =>
		of(window, soaked) / of(window, control);
/** The part of the minute from `from` in which the two are compared: the fresh one warmed up. */
const comparedFrom =
	(from: number): Window =>
	(at) =>
		at >= from + FRESH_WARMUP_MS && at < from + 60_000;
/** The calibrator's fixed piece of work in ms (median): larger is a slower machine. */
const machineMs = (window: Window) =>
	percentile(
		calibration.filter((c) => window(c.at)).map((c) => c.ms),
		50,
	);
/** When each measured minute starts. */
const measuredMinuteStarts = Array.from({ length: minutes }, (_, i) => measuredFrom + i * 60_000);
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
		{ name: 'event-loop delay p99 (ms, mean of each second)', of: eventLoopP99 },
	].map(({ name, of }) => ({
		name,
		first: of(firstMinute),
		last: of(lastMinute),
		perMinute: measuredMinuteStarts.map((from) => of(minuteFrom(from))),
	})),
	// The same, over the fresh server's beside it (seconds 15–60 of each minute): the machine's speed
	// moves both alike; what a long run changed in the server moves only the soaked one's.
	...[
		{ name: "p99 as the client sees it, over the fresh server's (ratio)", of: clientP99 },
		{ name: "p99 inside the server, over the fresh server's (ratio)", of: serverP99 },
		{ name: "event-loop delay p99, over the fresh server's (ratio)", of: eventLoopP99 },
	].map(({ name, of }) => ({
		name,
		first: againstFresh(of)(comparedFrom(measuredFrom)),
		last: againstFresh(of)(comparedFrom(ended - 60_000)),
		perMinute: measuredMinuteStarts.map((from) => againstFresh(of)(comparedFrom(from))),
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
	fresh: [] as string[],
	againstFresh: [] as string[],
	machine: [] as string[],
	clientLoopP99: [] as string[],
	waitingForCpu: [] as string[],
};
// Whole minutes back from the end of the warm-up, then forward to the end.
const firstFrom = measuredFrom - Math.floor((measuredFrom - started) / 60_000) * 60_000;
const minuteStarts = Array.from(
	{ length: Math.round((ended - firstFrom) / 60_000) },
	(_, i) => firstFrom + i * 60_000,
);
for (const from of minuteStarts) {
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
	const compared = comparedFrom(from);
	byMinute.memory.push(
		`${ofSamples((s) => s.rssMb)}/${ofSamples((s) => s.anonMb)}/${ofServer((e) => e.heapTotalMb)}/${ofServer((e) => e.heapMb)}/${ofServer((e) => e.externalMb)}`,
	);
	byMinute.clientP99.push(clientP99(inMinute).toFixed(1));
	byMinute.serverLatency.push(
		`${percentile(requestMs, 50).toFixed(2)}/${percentile(requestMs, 99).toFixed(1)}`,
	);
	byMinute.cpuPerRequest.push(cpuPerRequest(inMinute).toFixed(0));
	byMinute.fresh.push(
		`${serverP99(compared, control).toFixed(1)}/${cpuPerRequest(compared, control).toFixed(0)}`,
	);
	byMinute.againstFresh.push(
		[serverP99, clientP99, eventLoopP99, cpuPerRequest]
			.map((of) => againstFresh(of)(compared).toFixed(2))
			.join('/'),
	);
	byMinute.machine.push((machineMs(inMinute) * 1000).toFixed(0));
	byMinute.clientLoopP99.push(mean(inClient.map((e) => e.loopP99)).toFixed(1));
	byMinute.waitingForCpu.push(
		`${ofServer((e) => e.waitingForCpuMs)}/${ofClient((e) => e.waitingMs)}/${ofClient((e) => e.pressureMs)}`,
	);
}

client.close();
calibrator.kill();
await Promise.all(retiring);
await server.stop();
receiver.server.close();
if (keep) writeFileSync(join(dir, 'latencies.json'), JSON.stringify(latencies));
else rmSync(dir, { recursive: true, force: true });

console.log(
	`\nSoak: ${minutes} min at ${rate} steps/s${pinned ? ", the servers' main threads on CPU 0, their other threads and the load generator on CPU 1" : ''} (${(rate * requestsPerStep).toFixed(0)} requests/s) after ${((measuredFrom - started) / 60_000).toFixed(1)} min of warm-up, ${steady ? `ended when RSS had grown less than 2 % in ${warmup.steadyMs / 60_000} min` : 'ended at its maximum: RSS still growing'} (${latencies.length} requests to the soaked server and ${freshLatencies.length} to the ${freshServers.length} fresh ones, ${errors} errors, ${receiver.received()} webhook deliveries received from both)\n`,
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
/** The correlation over every minute of the run of two figures of a minute. */
const correlationByMinute = (x: (from: number) => number, y: (from: number) => number) =>
	correlation(minuteStarts.map(x), minuteStarts.map(y)).toFixed(2);
console.log(
	`The fresh server beside it (seconds 15–60 of each minute), minute by minute, as p99 inside it in ms/its main thread on a CPU per request in µs: ${byMinute.fresh.join(' ')}; the correlation of its CPU time per request with the soaked server's over the ${minuteStarts.length} minutes: ${correlationByMinute(
		(from) => cpuPerRequest(comparedFrom(from), control),
		(from) => cpuPerRequest(comparedFrom(from)),
	)}\n`,
);
console.log(
	`The soaked server over the fresh one (seconds 15–60 of each minute), minute by minute, as p99 inside the server/p99 as the client sees it/event-loop delay p99/CPU time per request: ${byMinute.againstFresh.join(' ')}\n`,
);
console.log(
	`The machine's speed: the calibrator's fixed piece of work on the server's core in µs (median), minute by minute: ${byMinute.machine.join(' ')}; its correlation with the server's CPU time per request over the ${minuteStarts.length} minutes: ${correlationByMinute(
		(from) => machineMs(minuteFrom(from)),
		(from) => cpuPerRequest(minuteFrom(from)),
	)}\n`,
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
if (keep) console.log(`Kept: ${dir}\n`);
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
