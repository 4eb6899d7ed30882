import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
	copyDatabase,
	FRESH_WARMUP_SHARE,
	startFreshServer,
	type FreshServer,
} from './soak-fresh-server.mts';
import {
	api,
	bootstrap,
	CAN_PIN,
	eventually,
	keepAliveApi,
	percentile,
	pinProcess,
	ROOT,
	SMOKE,
	startReceiver,
	tempDir,
} from './support.mts';
import BetterSqlite3 from 'better-sqlite3';
import { spawnServer } from '../tooling/api/server-process.ts';

// `npm run bench:soak`: the API server under a steady mixed load — reads, session creations, members
// added and removed (each creation and removal a webhook delivery to a local receiver) — at SOAK_RATE
// steps of the mix a second (150; 172 requests), measured for SOAK_MINUTES (10) once the server has
// reached its steady state. The warm-up is the same load, not measured, until RSS has grown less
// than 2 % over the last SOAK_STEADY_S seconds (480), but at least SOAK_WARMUP_MIN_S (1200) and at
// most SOAK_WARMUP_MAX_S (2400): V8 compiles the hot paths and sizes its heap in steps, and SQLite's
// page cache fills as the database outgrows it (docs/performance.md). A leak never levels off: the
// warm-up then ends at its maximum and the measurement shows the growth.
//
// The verdict compares the last measured minute with the first: memory (RSS), open file
// descriptors, the V8 heap still live after a full GC (forced just before and just after the
// measurement); and the last half of the minutes with the first: request p99 — inside the server
// and as the client sees it — over a control's: a
// fresh server beside the soaked one, on its core and under the same load half a step later, started
// anew every minute from the database the soaked one started from (bench/soak-fresh-server.mts). The
// machine's speed moves both alike; what the long run changed in the server moves only the soaked
// one's. The servers' main threads run on one core, the rest on the other (SOAK_PIN=0: all share
// both). `--smoke` runs it all in seconds (5 s "minutes"), its figures not judged.
const MINUTE_MS = SMOKE ? 5_000 : 60_000;
const minutes = SMOKE ? 2 : Number(process.env.SOAK_MINUTES ?? 10);
const rate = SMOKE ? 20 : Number(process.env.SOAK_RATE ?? 150);
const seconds = (name: string, normal: number, smoke: number) =>
	(SMOKE ? smoke : Number(process.env[name] ?? normal)) * 1000;
const warmup = {
	minMs: seconds('SOAK_WARMUP_MIN_S', 1200, 5),
	maxMs: seconds('SOAK_WARMUP_MAX_S', 2400, 10),
	steadyMs: seconds('SOAK_STEADY_S', 480, 5),
};
const measuredMs = minutes * MINUTE_MS;
const freshWarmupMs = FRESH_WARMUP_SHARE * MINUTE_MS;

const dir = tempDir('soak');
const probeFile = join(dir, 'soaked.jsonl');
const databasePath = join(dir, 'db.sqlite');
// The database every server of the soak starts from: the soaked one and each fresh control.
const templatePath = join(dir, 'template.sqlite');
const boot = bootstrap(templatePath);
const receiver = await startReceiver({ recordArrivals: false });
const key = boot.api_key;
const orgId = boot.org.id;
const setup = await spawnServer({
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

// Retention of minutes rather than days (SOAK_EVENT_RETENTION_MIN, 10; SOAK_DELIVERY_RETENTION_MIN,
// 5), so that within the warm-up the store reaches the size at which it deletes as much as the
// load adds: the measured minutes show whether it stays there.
const retentionDays = (name: string, minutes: number) =>
	String(Number(process.env[name] ?? minutes) / (24 * 60));
const serverEnv = {
	WEBHOOK_ALLOW_INSECURE_URLS: 'true',
	RATE_LIMIT_REQUESTS: '100000000',
	EVENT_RETENTION_DAYS: retentionDays('SOAK_EVENT_RETENTION_MIN', SMOKE ? 2 : 10),
	DELIVERY_RETENTION_DAYS: retentionDays('SOAK_DELIVERY_RETENTION_MIN', SMOKE ? 1.5 : 5),
	NODE_OPTIONS: `--import ${join(ROOT, 'bench', 'soak-probe.mjs')}`,
};
const server = await spawnServer({
	...serverEnv,
	DATABASE_PATH: databasePath,
	SOAK_PROBE_FILE: probeFile,
});
const pid = server.child.pid!;
// The servers' main threads on one core; their other threads (the checkpoint worker, V8's helpers)
// and the load generator on the other. Sharing both cores, the main thread waited for a CPU 47–61 ms
// of every second, most of it behind the load generator.
const pinned = process.env.SOAK_PIN !== '0' && CAN_PIN;
const placeServer = (serverPid: number) => {
	if (!pinned) return;
	pinProcess(serverPid, 1);
	pinProcess(serverPid, 0, 'main');
};
placeServer(pid);
if (pinned) pinProcess(process.pid, 1);

/** When each request was answered and how long it took as the client saw it (ms), in typed arrays. */
class LatencyLog {
	length = 0;
	private at = new Float64Array(1 << 16);
	private ms = new Float32Array(1 << 16);
	push(at: number, ms: number): void {
		if (this.length === this.at.length) {
			const [at, ms] = [new Float64Array(this.length * 2), new Float32Array(this.length * 2)];
			at.set(this.at);
			ms.set(this.ms);
			[this.at, this.ms] = [at, ms];
		}
		this.at[this.length] = at;
		this.ms[this.length++] = ms;
	}
	within(window: Window): number[] {
		const found: number[] = [];
		for (let i = 0; i < this.length; i++) if (window(this.at[i])) found.push(this.ms[i]);
		return found;
	}
}
type Window = (at: number) => boolean;
/** Latencies as the client saw them: the soaked server's, and the fresh controls'. */
const latencies = new LatencyLog();
const freshLatencies = new LatencyLog();

const client = keepAliveApi(key);
async function timed(log: LatencyLog, url: string, method: string, body?: unknown) {
	const sent = performance.now();
	const answer = await client.call(url, method, body);
	log.push(Date.now(), performance.now() - sent);
	return answer;
}

/** The n-th step of the mix: reads 60 %, session creations 25 %, a member added then removed 15 %. */
async function oneStep(url: string, log: LatencyLog, n: number): Promise<void> {
	const pick = n % 20;
	if (pick < 12) {
		const reads = ['/sessions?limit=50', '/me', '/labs', `/orgs/${orgId}/events?limit=50`];
		await timed(log, `${url}${reads[n % reads.length]}`, 'GET');
	} else if (pick < 17) {
		await timed(log, `${url}/sessions`, 'POST', {
			title: `Soak ${n}`,
			lab_version_id: versionId,
			capacity: 10,
		});
	} else {
		const member = JSON.parse(
			await timed(log, `${url}/orgs/${orgId}/members`, 'POST', {
				email: `soak-${n}@bench.test`,
				name: `Soak ${n}`,
				role: 'trainer',
			}),
		);
		await timed(log, `${url}/orgs/${orgId}/members/${member.user_id}`, 'DELETE');
	}
}

const samples: Array<{ at: number; rssMb: number; fds: number; keptRows: number }> = [];
/**
 * The rows the retention bounds in the soaked database: events, deliveries and their attempts (the
 * sessions and members the load creates are the organization's own, kept as long as it is).
 */
function rowsUnderRetention(): number {
	const db = new BetterSqlite3(databasePath, { readonly: true });
	try {
		return ['events', 'webhook_deliveries', 'webhook_delivery_attempts']
			.map((table) => db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number })
			.reduce((sum, { n }) => sum + n, 0);
	} finally {
		db.close();
	}
}
let errors = 0;
const firstErrors: string[] = [];
const started = Date.now();
function recordError(error: Error, at: string): void {
	if (++errors <= 10)
		firstErrors.push(
			`${((Date.now() - started) / 60_000).toFixed(1)} min, ${at}: ${error.message} ${(error as NodeJS.ErrnoException).code ?? ''}`,
		);
}

// The control: a fresh server started anew every minute. The next one starts 5 % into a minute, in
// its part left out of the comparison, and waits idle for its own.
const freshServers: FreshServer[] = [];
const startFresh = async () => {
	const fresh = await startFreshServer({
		n: freshServers.length,
		template: templatePath,
		dir,
		env: serverEnv,
		place: placeServer,
		keep: false,
	});
	freshServers.push(fresh);
	return fresh;
};
let fresh = await startFresh();
fresh.from = started;
let nextFresh: Promise<FreshServer> | undefined;
async function answered(target: { inFlight: number }): Promise<void> {
	while (target.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 50));
}
const retiring: Array<Promise<void>> = [];
const retire = (old: FreshServer) => retiring.push(answered(old).then(() => old.stop()));
let loadEnded = false;
let preparation: NodeJS.Timeout;
let rotation: NodeJS.Timeout;
const prepareNext = () =>
	(preparation = setTimeout(() => (nextFresh = startFresh()), MINUTE_MS / 20));
function rotateAt(minuteStart: number): void {
	rotation = setTimeout(
		async () => {
			// Late (a busy machine): the next server may not be on its way yet.
			clearTimeout(preparation);
			const next = await (nextFresh ??= startFresh());
			nextFresh = undefined;
			if (loadEnded) return retire(next);
			const old = fresh;
			fresh = next;
			fresh.from = old.to = minuteStart;
			retire(old);
			prepareNext();
			rotateAt(minuteStart + MINUTE_MS);
		},
		Math.max(0, minuteStart - Date.now()),
	);
}
prepareNext();
rotateAt(started + MINUTE_MS);

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const rssOfMinuteTo = (at: number) =>
	mean(samples.filter((s) => s.at > at - MINUTE_MS && s.at <= at).map((s) => s.rssMb));
/** When the measurement began: the end of the warm-up, at the start of a fresh server's minute. */
let measured: number | undefined;
let steady = false;
function measureOnceSteady(now: number): void {
	const warmedFor = now - started;
	if (measured !== undefined || warmedFor < warmup.minMs) return;
	steady = rssOfMinuteTo(now) <= 1.02 * rssOfMinuteTo(now - warmup.steadyMs);
	if (!steady && warmedFor < warmup.maxMs) return;
	// The live heap just before the measurement (the probe's forced GC pauses the server): the
	// measurement starts at the next minute, at least 2 s later.
	process.kill(pid, 'SIGUSR2');
	measured = started + Math.ceil((now + 2_000 - started) / MINUTE_MS) * MINUTE_MS;
}
const sampler = setInterval(
	() => {
		const status = readFileSync(`/proc/${pid}/status`, 'utf8');
		const now = Date.now();
		samples.push({
			at: now,
			rssMb: Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024,
			fds: readdirSync(`/proc/${pid}/fd`).length,
			keptRows: rowsUnderRetention(),
		});
		measureOnceSteady(now);
	},
	SMOKE ? 500 : 5_000,
);
const progress = setInterval(() => {
	const phase =
		measured === undefined
			? `warming up for ${Math.round((Date.now() - started) / 60_000)} min`
			: `measuring for ${Math.round((Date.now() - measured) / 60_000)} of ${minutes} min`;
	console.error(`  ${phase}, ${latencies.length} requests, ${errors} errors`);
}, 60_000);

// A steady rate: one step every 1000/rate ms whatever the answers take (at most 200 in flight); the
// same to the control half a step later (two servers sent each step at once had one wait for the
// other).
const done = () => measured !== undefined && Date.now() - measured >= measuredMs;
interface Target {
	url: string;
	inFlight: number;
}
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
const soakedTarget: Target = { url: server.url, inFlight: 0 };
const soakedLoad = steadyLoad(() => soakedTarget, latencies, 'soaked server');
await new Promise((resolve) => setTimeout(resolve, 500 / rate));
const freshLoad = steadyLoad(() => fresh, freshLatencies, 'fresh server');
await Promise.all([soakedLoad, freshLoad]);
clearInterval(sampler);
clearInterval(progress);
loadEnded = true;
clearTimeout(preparation!);
clearTimeout(rotation!);
fresh.to = Date.now();
await answered(soakedTarget);
process.kill(pid, 'SIGUSR2');
retire(fresh);
if (nextFresh) retire(await nextFresh);

interface ProbeRecord {
	at: number;
	requestMs?: number[];
	liveHeapMb?: number;
}
const readProbe = (file: string) =>
	readFileSync(file, 'utf8')
		.trim()
		.split('\n')
		.map((line) => JSON.parse(line) as ProbeRecord);
const probe = await eventually(() => {
	const records = readProbe(probeFile);
	return records.filter((record) => record.liveHeapMb !== undefined).length === 2 && records;
}, 'the live heap after the measurement');
const [liveHeapBefore, liveHeapAfter] = probe.flatMap((record) => record.liveHeapMb ?? []);
/** A server's request latencies inside it, by when they ended. */
const requestsOf = (records: ProbeRecord[]) =>
	records.flatMap((record) => (record.requestMs ?? []).map((ms) => ({ at: record.at, ms })));
const soakedRequests = requestsOf(probe);
const freshRequests = freshServers.flatMap((server) =>
	requestsOf(readProbe(server.probeFile)).filter((r) => r.at >= server.from && r.at < server.to),
);

const measuredFrom = measured!;
const minuteFrom =
	(from: number): Window =>
	(at) =>
		at >= from && at < from + MINUTE_MS;
/** The part of a minute in which the two servers are compared: the fresh one warmed up. */
const comparedFrom =
	(from: number): Window =>
	(at) =>
		at >= from + freshWarmupMs && at < from + MINUTE_MS;
const minuteStarts = Array.from({ length: minutes }, (_, i) => measuredFrom + i * MINUTE_MS);
/** Samples of the minutes starting at `starts`, averaged. */
const ofSamples = (pick: 'rssMb' | 'fds' | 'keptRows') => (starts: number[]) =>
	mean(samples.filter((s) => starts.some((from) => minuteFrom(from)(s.at))).map((s) => s[pick]));
const p99Within = (requests: Array<{ at: number; ms: number }>, window: Window) =>
	percentile(
		requests.filter((r) => window(r.at)).map((r) => r.ms),
		99,
	);
/** The compared parts of the minutes starting at `starts`, as one window. */
const comparedIn =
	(starts: number[]): Window =>
	(at) =>
		starts.some((from) => comparedFrom(from)(at));
const serverP99OverFresh = (starts: number[]) =>
	p99Within(soakedRequests, comparedIn(starts)) / p99Within(freshRequests, comparedIn(starts));
const clientP99OverFresh = (starts: number[]) =>
	percentile(latencies.within(comparedIn(starts)), 99) /
	percentile(freshLatencies.within(comparedIn(starts)), 99);
// Memory compares the first minute with the last, where a leak shows most. Latency compares the
// first half of the minutes with the last, pooled: one minute's p99 ratio on a 2-core machine
// wanders by ±15 % with no direction (docs/performance.md), as much as the bound.
const firstAndLast = [[minuteStarts[0]], [minuteStarts.at(-1)!]];
const half = Math.floor(minutes / 2);
const halves = [minuteStarts.slice(0, half), minuteStarts.slice(-half)];
const pooled = `(pooled: the first ${half} minutes, the last ${half})`;
const metrics = [
	{ name: 'memory (RSS, MB, mean)', of: ofSamples('rssMb'), compared: firstAndLast },
	{ name: 'open file descriptors (mean)', of: ofSamples('fds'), compared: firstAndLast },
	{
		name: 'events, deliveries and attempts kept (rows, mean; retention of minutes)',
		of: ofSamples('keptRows'),
		compared: firstAndLast,
	},
	{
		name: `request p99 inside the server, over the fresh server's ${pooled}`,
		of: serverP99OverFresh,
		compared: halves,
	},
	{
		name: `request p99 as the client sees it, over the fresh server's ${pooled}`,
		of: clientP99OverFresh,
		compared: halves,
	},
].map(({ name, of, compared: [before, after] }) => ({
	name,
	first: of(before),
	last: of(after),
	perMinute: minuteStarts.map((from) => of([from])),
}));
metrics.push({
	name: 'V8 heap live after a full GC (MB; before and after the measurement)',
	first: liveHeapBefore,
	last: liveHeapAfter,
	perMinute: [],
});

client.close();
await Promise.all(retiring);
await server.stop();
receiver.server.close();
rmSync(dir, { recursive: true, force: true });

const minutesOf = (ms: number) => (SMOKE ? `${ms / 1000} s` : `${(ms / 60_000).toFixed(1)} min`);
console.log(
	`\nSoak${SMOKE ? ' (smoke: minutes of 5 s, figures not judged)' : ''}: ${minutes} minutes measured at ${rate} steps/s after ${minutesOf(measuredFrom - started)} of warm-up, ${steady ? `ended when RSS had grown less than 2 % in ${minutesOf(warmup.steadyMs)}` : 'ended at its maximum: RSS still growing'}; ${latencies.length} requests to the soaked server, ${freshLatencies.length} to ${freshServers.length} fresh ones, ${errors} errors, ${receiver.received()} webhook deliveries\n`,
);
if (firstErrors.length > 0) console.log(`Errors (the first 10):\n${firstErrors.join('\n')}\n`);
const signed = (share: number) => `${share >= 0 ? '+' : ''}${(share * 100).toFixed(1)} %`;
console.log('| metric | first | last | change | within 10 % | each measured minute |');
console.log('|---|---|---|---|---|---|');
for (const { name, first, last, perMinute } of metrics) {
	const change = (last - first) / first;
	console.log(
		`| ${name} | ${first.toFixed(2)} | ${last.toFixed(2)} | ${signed(change)} | ${SMOKE ? 'not judged' : Math.abs(change) <= 0.1 ? 'yes' : 'NO'} | ${perMinute.map((value) => value.toFixed(2)).join(' ') || '—'} |`,
	);
}
