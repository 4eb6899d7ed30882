// `npm run bench:instructions -- [cell] [--warm N] [--count N] [--scrape-every N] [--off-unasked]`:
// the instructions a request costs the API server's main thread, metrics and traces off against
// on, counted by valgrind's callgrind (Debian's `valgrind`). Unlike throughput or CPU time, a count
// does not move with what else the machine does, so it reads a change of a few hundred
// instructions a request. Two servers, one of each mode, run at once under callgrind with their
// JIT code named (`--perf-basic-prof`), each on its own copy of the same data (1,000 sessions);
// each answers `--warm` requests of `cell` at 10 connections, then `--count` more with callgrind
// counting. `cell` is a request of the overhead benchmark: `/me` (the default),
// `/sessions/{id}`, `/sessions?limit=100` or `POST /sessions`. As in
// bench/observability.mts, both are asked for `/metrics` a few times in the warm-up and once each
// `--scrape-every` counted requests (10,000: once a second at the benchmark's rate), off answering
// 404; with `--off-unasked`, only on is. Printed: each mode's instructions a request on its main
// thread, and the functions whose count differs most between them. Totals of one mode move about
// 0.7 % from run to run (V8's code is laid out anew each time): compare functions, not totals. The
// span export thread is not read: under valgrind its once-a-second work is inflated many times.
import autocannon from 'autocannon';
import { spawnSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { spawnServer } from '../tooling/api/server-process.ts';
import { overheadCell, overheadServerEnv, startSinkCollector, TOKEN } from './overhead-cell.mts';
import { bootstrap, seedSessions, tempDir } from './support.mts';

const { values, positionals } = parseArgs({
	allowPositionals: true,
	options: {
		warm: { type: 'string', default: '20000' },
		count: { type: 'string', default: '10000' },
		'scrape-every': { type: 'string', default: '10000' },
		'off-unasked': { type: 'boolean', default: false },
	},
});
const warm = Number(values.warm);
const count = Number(values.count);
/** The benchmark's scrape, once a second at about 10,000 requests a second: one in the count. */
const scrapeEvery = Number(values['scrape-every']);
const CONNECTIONS = 10;

if (spawnSync('valgrind', ['--version']).status !== 0)
	throw new Error('needs valgrind (Debian: apt-get install valgrind)');

const collector = await startSinkCollector();

/** The data both servers start from: the bench organization with 1,000 sessions. */
const dataDir = tempDir('instructions-data');
const seeded = join(dataDir, 'seeded.sqlite');
const boot = bootstrap(seeded);
const cell = overheadCell(positionals[0], seedSessions(seeded, boot, 1000));

/** Each function's instructions on the main thread, a request, named. */
type Counts = Map<string, number>;

async function countMode(mode: 'off' | 'on'): Promise<{ total: number; functions: Counts }> {
	const dir = tempDir(`instructions-${mode}`);
	const databasePath = join(dir, 'db.sqlite');
	copyFileSync(seeded, databasePath);
	const out = join(dir, 'callgrind.out');
	const server = await spawnServer(overheadServerEnv(mode, databasePath, collector.url), {
		under: [
			'valgrind',
			'--tool=callgrind',
			'--instr-atstart=no',
			'--smc-check=all-non-file',
			'--separate-threads=yes',
			`--callgrind-out-file=${out}`,
		],
		nodeArgs: ['--perf-basic-prof'],
		// Its own folder: V8 may write logs into it.
		cwd: dir,
	});
	const { child, url } = server;
	try {
		const request: autocannon.Options = {
			url: `${url}${cell.path}`,
			method: cell.method,
			connections: CONNECTIONS,
			headers: {
				authorization: `Bearer ${boot.api_key}`,
				...(cell.body ? { 'content-type': 'application/json' } : {}),
			},
			body: cell.body && JSON.stringify(cell.body),
		};
		const scrape = async () => {
			const answer = await fetch(`${new URL(url).origin}/metrics`, {
				headers: { authorization: `Bearer ${TOKEN}` },
			});
			if (!answer.ok && mode === 'on') throw new Error(`/metrics answered ${answer.status}`);
			await answer.text();
		};
		// The warm-up is scraped too, a few times: a server's first scrapes deoptimise code its
		// requests run, which V8 then optimises again for both.
		const scraped = mode === 'on' || !values['off-unasked'];
		for (let part = 0; part < 4; part++) {
			if (scraped) await scrape();
			await autocannon({ ...request, amount: warm / 4 });
		}
		const control = (...args: string[]) => {
			const done = spawnSync('callgrind_control', [...args, String(child.pid)]);
			if (done.status !== 0) throw new Error(`callgrind_control ${args}: ${done.stderr}`);
		};
		control('-i', 'on');
		if (scraped)
			for (let scrapes = 0; scrapes < Math.round(count / scrapeEvery); scrapes++) await scrape();
		const result = await autocannon({ ...request, amount: count });
		control('-d');
		control('-i', 'off');
		if (result.non2xx + result.errors > 0) throw new Error(`${mode}: requests failed`);
		const mainThread = readdirSync(dir).find(
			(name) => name.startsWith('callgrind.out') && name.endsWith('-01'),
		);
		if (!mainThread) throw new Error(`${mode}: callgrind wrote no dump of the main thread`);
		return named(join(dir, mainThread), `/tmp/perf-${child.pid}.map`);
	} finally {
		await server.stop();
		rmSync(dir, { recursive: true, force: true });
		rmSync(`/tmp/perf-${child.pid}.map`, { force: true });
	}
}

/** A dump's total and its functions' own counts a request, JIT code named from the perf map. */
function named(dump: string, perfMap: string): { total: number; functions: Counts } {
	const symbols = readFileSync(perfMap, 'utf8')
		.split('\n')
		.filter(Boolean)
		.map((line) => {
			const [start, size, ...name] = line.split(' ');
			return { start: parseInt(start, 16), end: parseInt(start, 16) + parseInt(size, 16), name };
		})
		.sort((a, b) => a.start - b.start);
	const symbolAt = (address: number): string | undefined => {
		let low = 0;
		let high = symbols.length - 1;
		while (low <= high) {
			const middle = (low + high) >> 1;
			const symbol = symbols[middle];
			if (address < symbol.start) high = middle - 1;
			else if (address >= symbol.end) low = middle + 1;
			else return symbol.name.join(' ');
		}
		return undefined;
	};
	const annotated = spawnSync('callgrind_annotate', ['--threshold=100', '--inclusive=no', dump], {
		encoding: 'utf8',
		maxBuffer: 256 * 1024 * 1024,
	});
	if (annotated.status !== 0) throw new Error(`callgrind_annotate: ${annotated.stderr}`);
	const total = Number(/^(?:totals|summary):\s*(\d+)/m.exec(readFileSync(dump, 'utf8'))![1]);
	const functions: Counts = new Map();
	for (const line of annotated.stdout.split('\n')) {
		const match = /^\s*([\d,]+)\s+\([^)]*\)\s+(.*)$/.exec(line);
		if (!match) continue;
		const instructions = Number(match[1].replaceAll(',', ''));
		// Callgrind marks a function's recursion depth (`'2`) and its object file (`[…]`).
		let name = match[2].replace(/\s+\[[^\]]*\]$/, '').replace(/'\d+$/, '');
		if (name === 'PROGRAM TOTALS') continue;
		const address = /^\?\?\?:0x([0-9a-f]+)$/.exec(name);
		if (address) name = symbolAt(parseInt(address[1], 16)) ?? 'unnamed JIT code';
		functions.set(name, (functions.get(name) ?? 0) + instructions / count);
	}
	return { total: total / count, functions };
}

try {
	const [off, on] = await Promise.all([countMode('off'), countMode('on')]);
	const round = (value: number) => Math.round(value).toLocaleString('en-US');
	console.log(
		`${cell.name}, instructions a request on the main thread: off ${round(off.total)}, on ${round(on.total)} (${on.total >= off.total ? '+' : ''}${round(on.total - off.total)})`,
	);
	const names = new Set([...off.functions.keys(), ...on.functions.keys()]);
	const differences = [...names]
		.map((name) => ({
			name,
			off: off.functions.get(name) ?? 0,
			on: on.functions.get(name) ?? 0,
		}))
		.filter(({ off, on }) => Math.abs(on - off) >= 20)
		.sort((a, b) => Math.abs(b.on - b.off) - Math.abs(a.on - a.off))
		.slice(0, 30);
	for (const { name, off, on } of differences)
		console.log(
			`  ${(on >= off ? '+' : '') + round(on - off)}`.padEnd(10) +
				`${round(off)} → ${round(on)}`.padEnd(18) +
				name.slice(0, 110),
		);
} finally {
	collector.close();
	rmSync(dataDir, { recursive: true, force: true });
}
