// `npm run bench:sampled -- [cell] [--rounds N] [--seconds S] [--warm S] [--top N]`: where the
// time that metrics and traces cost goes, off against on: by thread, by area and by function, in
// µs a request. Linux `perf` (Debian's `linux-perf`) samples every thread of two servers, one of
// each mode, 4,999 times a second of CPU time (`cpu-clock`: no hardware counters needed), while they
// take turns on CPU 0 under the same load (bench/turns.mts), so both are read at the same moments
// of the machine; JIT code is named through `--perf-basic-prof`. `bench:instructions` counts
// instructions, the same whatever the machine does, but not what they wait for (caches, the
// kernel, the hypervisor) nor the other threads; this reads time, which moves with the machine: a
// pair of fresh servers a round, `--rounds` rounds (4) in alternating order, each after `--warm`
// seconds (10) of load, read for `--seconds` (30). Both servers are asked for `/metrics` every 2 s
// (off answers 404), as in bench/observability.mts. `cell` as for `bench:instructions`.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, copyFileSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { machine } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { spawnServer } from '../tooling/api/server-process.ts';
import { load } from './load.mts';
import { overheadCell, overheadServerEnv, startSinkCollector, TOKEN } from './overhead-cell.mts';
import { bootstrap, pinProcess, seedSessions, tempDir } from './support.mts';
import { threadKindOf, THREAD_KINDS } from './thread-times.mts';
import { inTurns } from './turns.mts';

const { values, positionals } = parseArgs({
	allowPositionals: true,
	options: {
		rounds: { type: 'string', default: '4' },
		seconds: { type: 'string', default: '30' },
		warm: { type: 'string', default: '10' },
		top: { type: 'string', default: '30' },
	},
});
const HZ = 4999;
const SCRAPE_EVERY_MS = 2000;
const CONNECTIONS = 10;
const MODES = ['off', 'on'] as const;
type Mode = (typeof MODES)[number];

if (process.platform !== 'linux' || spawnSync('perf', ['--version']).status !== 0)
	throw new Error('needs Linux perf (Debian: apt-get install linux-perf)');

const collector = await startSinkCollector();
pinProcess(process.pid, 1);
const dir = tempDir('sampled-time');
const seeded = join(dir, 'seeded.sqlite');
const boot = bootstrap(seeded);
const seededData = seedSessions(seeded, boot, 10_000);
const cell = overheadCell(positionals[0], seededData);

/** Samples by name, per mode, over every round; and the requests each mode answered. */
const samples = { off: new Map<string, number>(), on: new Map<string, number>() };
const requests = { off: 0, on: 0 };
const add = (mode: Mode, name: string, count: number) =>
	samples[mode].set(name, (samples[mode].get(name) ?? 0) + count);

/** What a sample's code is, from its object file and symbol. */
function areaOf(dso: string, symbol: string): string {
	if (symbol.startsWith('[k]')) return 'the kernel';
	if (dso.includes('better_sqlite3')) return 'SQLite';
	if (symbol.includes('JS:'))
		return /server\/src\/(observability\/|http\/request-observer)/.test(symbol)
			? 'our metrics and traces code'
			: 'other JavaScript';
	if (symbol.includes('Builtins_')) return "V8's builtins";
	if (/Scaveng|Mark|Sweep|Evacuat|Heap::|RecordWrite|Compactor|IterateObjectCache/.test(symbol))
		return 'collecting garbage';
	if (dso === 'node') return "the rest of V8's and Node's code";
	return 'libraries (libc, OpenSSL, …)';
}

/** One server's samples, by thread kind, area and function (tier marks and addresses dropped). */
function readSamples(mode: Mode, data: string, pid: number): void {
	const report = spawnSync(
		'perf',
		[
			'report',
			'-i',
			data,
			'--stdio',
			'-n',
			'--no-children',
			'-g',
			'none',
			'-t',
			'|',
			'--sort',
			'pid,dso,sym',
		],
		{ encoding: 'utf8', maxBuffer: 1 << 28 },
	);
	if (report.status !== 0) throw new Error(`perf report: ${report.stderr}`);
	// Each line: share|samples|tid:command|object file|symbol.
	for (const line of report.stdout.split('\n')) {
		const fields = line.split('|');
		if (fields.length < 5 || !/^[\d.]+%$/.test(fields[0].trim())) continue;
		const count = Number(fields[1]);
		const [tid, comm] = fields[2].trim().split(':');
		const dso = fields[3].trim();
		const symbol = fields
			.slice(4)
			.join('|')
			.trim()
			.replace(/0x[0-9a-f]+/g, '…')
			.replace(/JS:[*+~^]?'?/, 'JS:');
		add(mode, `thread: ${threadKindOf(Number(tid) === pid, comm)}`, count);
		add(mode, `area: ${areaOf(dso, symbol)}`, count);
		add(mode, symbol.replace(/file:\/\/\S*?\/server\//, 'server/'), count);
	}
}

/**
 * `perf record` of every thread of the process `pid` into `data`, its sampling off until `sample`
 * turns it on: told through its control FIFO, it acknowledges each change once made, so that the
 * samples cover the load and nothing before or after it.
 */
function recordThreads(pid: number, data: string) {
	const control = `${data}.control`;
	const acks = `${data}.ack`;
	execFileSync('mkfifo', [control, acks]);
	const perf = spawn(
		'perf',
		[
			'record',
			...['-e', 'cpu-clock', '-F', String(HZ), '-p', String(pid), '-o', data],
			// Sampling off until told: --delay=-1.
			...['--delay=-1', `--control=fifo:${control},${acks}`],
		],
		{ stdio: 'ignore' },
	);
	const exited = once(perf, 'exit');
	let acksRead: number | undefined;
	return {
		data,
		/** Turns sampling on or off, and returns once perf has (blocking: between two loads). */
		sample(on: boolean): void {
			writeFileSync(control, on ? 'enable\n' : 'disable\n');
			acksRead ??= openSync(acks, 'r');
			const buffer = Buffer.alloc(16);
			let answer = '';
			while (!answer.includes('ack'))
				answer += buffer.toString('latin1', 0, readSync(acksRead, buffer));
		},
		async stop(): Promise<void> {
			if (acksRead !== undefined) closeSync(acksRead);
			perf.kill('SIGINT');
			await exited;
		},
	};
}

for (let round = 0; round < Number(values.rounds); round++) {
	const order: Mode[] = round % 2 ? ['on', 'off'] : ['off', 'on'];
	const servers = await Promise.all(
		order.map(async (mode) => {
			const databasePath = join(dir, `${round}-${mode}.sqlite`);
			copyFileSync(seeded, databasePath);
			const server = await spawnServer(overheadServerEnv(mode, databasePath, collector.url), {
				// Laid out alike, as spawnServer's 'node, fixed layout'.
				under: ['setarch', machine(), '--addr-no-randomize'],
				nodeArgs: ['--perf-basic-prof'],
				cwd: dir,
			});
			pinProcess(server.child.pid!, 0);
			const metrics = `${new URL(server.url).origin}/metrics`;
			const scraper = setInterval(
				() =>
					void fetch(metrics, { headers: { authorization: `Bearer ${TOKEN}` } })
						.then((answer) => answer.text())
						.catch(() => undefined),
				SCRAPE_EVERY_MS,
			);
			return { mode, server, pid: server.child.pid!, scraper };
		}),
	);
	const pids = [servers[0].pid, servers[1].pid] as const;
	const loadBoth = (seconds: number) =>
		inTurns(pids, () =>
			Promise.all(
				servers.map(({ server }) =>
					load({
						...cell.request(server.url, boot.api_key),
						connections: CONNECTIONS,
						seconds,
						warmUp: false,
					}),
				),
			),
		);
	try {
		await loadBoth(Number(values.warm));
		const recordings = servers.map(({ pid }) =>
			recordThreads(pid, join(dir, `${round}-${pid}.perf`)),
		);
		for (const recording of recordings) recording.sample(true);
		const { result } = await loadBoth(Number(values.seconds));
		for (const recording of recordings) recording.sample(false);
		for (const recording of recordings) await recording.stop();
		const line: string[] = [];
		for (const [index, { mode, pid }] of servers.entries()) {
			if (result[index].errors > 0)
				throw new Error(`${mode}: ${result[index].errors} requests failed`);
			readSamples(mode, recordings[index].data, pid);
			requests[mode] += result[index].requests;
			line.push(`${mode} ${result[index].requests.toLocaleString('en')} requests`);
		}
		console.error(`round ${round + 1}: ${line.join(', ')}`);
	} finally {
		for (const { server, pid, scraper } of servers) {
			clearInterval(scraper);
			await server.stop();
			rmSync(`/tmp/perf-${pid}.map`, { force: true });
		}
	}
}
collector.close();
rmSync(dir, { recursive: true, force: true });

/** µs a request, of `mode`, that `name`'s samples stand for. */
const microseconds = (mode: Mode, name: string) =>
	(((samples[mode].get(name) ?? 0) / HZ) * 1e6) / requests[mode];
const change = (label: string, [off, on]: number[]) =>
	`  ${label}: ${off.toFixed(2)} → ${on.toFixed(2)} µs (${on >= off ? '+' : ''}${(on - off).toFixed(2)})`;
const row = (name: string, label = name) =>
	change(
		label,
		MODES.map((mode) => microseconds(mode, name)),
	);
const names = new Set([...samples.off.keys(), ...samples.on.keys()]);
const threads = THREAD_KINDS.map((kind) => `thread: ${kind}`);
console.log(
	`${cell.name}, µs a request, off → on (${values.rounds} rounds of ${values.seconds} s):`,
);
console.log(
	change(
		'in all',
		MODES.map((mode) => threads.reduce((sum, name) => sum + microseconds(mode, name), 0)),
	),
);
for (const name of threads) console.log(row(name, name.slice('thread: '.length)));
console.log('by area:');
for (const name of [...names].filter((name) => name.startsWith('area: ')).sort())
	console.log(row(name, name.slice('area: '.length)));
console.log('the functions whose time differs most:');
for (const name of [...names]
	.filter((name) => !name.startsWith('area: ') && !name.startsWith('thread: '))
	.sort(
		(a, b) =>
			Math.abs(microseconds('on', b) - microseconds('off', b)) -
			Math.abs(microseconds('on', a) - microseconds('off', a)),
	)
	.slice(0, Number(values.top)))
	console.log(row(name));
