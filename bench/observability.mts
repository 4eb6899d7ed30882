import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { PeerRequest, PeerTally } from './observability-peer.mts';
import { spawnServer } from '../tooling/api/server-process.ts';
import { parseExposition, total } from '../tooling/prometheus-text.ts';
import { load } from './load.mts';
import { overheadCell, overheadServerEnv, REQUEST_CELLS, TOKEN } from './overhead-cell.mts';
import { startGatedReceiver } from './gated-receiver.mts';
import {
	addTimes,
	noThreadTimes,
	THREAD_KINDS,
	threadTimes,
	timesBetween,
	type ThreadTimes,
} from './thread-times.mts';
import { inTurns } from './turns.mts';
import {
	api,
	bootstrap,
	CAN_PIN,
	cpusOf,
	median,
	pinProcess,
	pointEndpoint,
	seedSessions,
	tempDir,
} from './support.mts';

export interface ObservabilityRow {
	/** A request cell (`GET /me`, …) or `webhook delivery`. */
	cell: string;
	/** Requests or deliveries per second of running: the median of the readings, off and on. */
	off: number;
	on: number;
	/**
	 * How far two servers of the same mode read apart, read like off against on (the second's
	 * median ÷ the first's), an A/A comparison: what this run cannot tell apart.
	 */
	apart: { off: number; on: number };
	/**
	 * CPU time a request or delivery, in µs, of each kind of the servers' threads (thread-times.mts),
	 * off and on: over all the readings of each mode. Unlike throughput, it does not follow the
	 * machine's speed only: where on spends more, and on which thread.
	 */
	cpu: { off: ThreadTimes; on: ThreadTimes };
}

/** The scraper's interval: once a second of a server's running, since it runs half the time. */
const SCRAPE_EVERY_MS = 2000;

/**
 * What metrics and traces cost: the same server off (the defaults) and on (`METRICS_ENABLED`,
 * `/metrics` scraped once a second of its running, spans exported to a collector that takes them
 * as fast as they come; both in a process of their own, bench/observability-peer.mts). Off is
 * asked for `/metrics` as often, and answers 404 (see readPair).
 *
 * Each reading loads two servers at once for `seconds` while they take turns on one CPU, 100 ms
 * each (bench/turns.mts), and answers each one's requests or deliveries per second of its own
 * running: a server off and one on, or, to see what the run cannot tell apart, two of the same
 * mode. Read one after the other, two servers read the machine at two moments, and the speed of
 * this class of machine wanders by a tenth from one second to the next: two servers alike, read
 * in 1 s readings one after the other, 40 times, read 0.95 to 1.14 × each other in the middle half
 * of the readings; read in turns, ten readings of 5 s, 0.92 to 1.08 ×, median 0.998 (scratch,
 * EPYC). An on server's exports come every second of the clock, twice a second of its running:
 * smaller batches than a server that runs alone sends, each costing it a little more.
 *
 * A server also keeps a speed of its own for its life: six pairs of fresh servers alike, each pair
 * read in turns, read 0.871 to 1.047 × each other (medians of three readings of 5 s), and 0.986 to
 * 1.052 × (five pairs within 1.5 %) with their memory laid out alike, as the servers here are on
 * Linux (spawnServer's `node, fixed layout`). V8's own seeds are not the rest of it: with
 * `--random-seed` and `--hash-seed` fixed as well, five pairs read 0.974 to 1.082 × each other,
 * five without 0.977 to 1.020 × (`GET /me` after 10 s of warm-up, medians of six readings of 2 s,
 * scratch, Intel, 2026-12-03). Each cell is read on `rounds` rounds of four fresh servers, two off
 * and two on, each on its own copy of the same data and kept running through the round. Each cell
 * gets `warmUpSeconds` of running on each before any is measured, so that a server has run the four
 * request cells' sum before its first reading, and delivery, alone on its servers,
 * `deliveryWarmUpSeconds`: for its first half minute of load or so a server still gets faster, more
 * slowly with metrics and traces on. Servers draining their backlogs delivered about 4,100 a second
 * of running after 8 s of it, and 5,200 to 6,900 after 20 to 30 s. Read after 8 s, traces on (or
 * both) read 0.88 to 0.91 × off in three runs; after 20 s both read 0.949 ×, after 30 s traces
 * 1.002 × (three rounds each, scratch, Intel, 2026-12-03): a short warm-up measured how fast a
 * server gets going, not what it delivers. Then each pair, off against on and off against off and
 * on against on, is read twice, each server of it first once.
 *
 * Request cells: the throughput benchmark's four requests at `connections` to each server.
 * Deliveries: each server holds a backlog of `backlog` deliveries to an endpoint of its own on a
 * gated receiver, which holds a server's sends unanswered while its gate is shut: a pair's gates
 * open for a reading, and the other servers keep their backlogs.
 */
export async function benchObservability(options: {
	rounds: number;
	seconds: number;
	warmUpSeconds: number;
	deliveryWarmUpSeconds: number;
	connections: number;
	sessions: number;
	backlog: number;
}): Promise<ObservabilityRow[]> {
	// Every server on CPU 0, with all its threads; the load generator, the receiver and the peer (a
	// child of this process, it inherits its CPUs) on CPU 1. What on adds outside the main thread
	// (the span export thread, V8's helpers collecting its garbage) then comes out of the server's
	// own core, as on a machine of its own, and not out of the time the load generator leaves idle.
	const cpusBefore = CAN_PIN ? cpusOf(process.pid) : '';
	if (CAN_PIN) pinProcess(process.pid, 1);
	const dir = tempDir('observability');
	const seeded = join(dir, 'seeded.sqlite');
	const boot = bootstrap(seeded);
	const seededData = seedSessions(seeded, boot, options.sessions);
	const peer = await startPeer();
	const gates = await startGatedReceiver();
	type Mode = 'off' | 'on';
	/** Spans the servers on dropped (their ring full, an export failed): none, or on did less. */
	let spansDropped = 0;
	/** A server of `mode` on a copy of the data at `data`, which `prepare` may change first. */
	const start = async (
		mode: Mode,
		name: string,
		data: string,
		prepare?: (databasePath: string) => void,
	) => {
		const databasePath = join(dir, `${name}.sqlite`);
		copyFileSync(data, databasePath);
		prepare?.(databasePath);
		const server = await spawnServer(
			{
				...overheadServerEnv(mode, databasePath, peer.collectorUrl),
				WEBHOOK_ALLOW_INSECURE_URLS: 'true',
				// A shut gate holds a server's sends for as long as the other servers' readings take.
				WEBHOOK_TIMEOUT_MS: '600000',
			},
			CAN_PIN ? 'node, fixed layout' : 'node',
		);
		if (CAN_PIN) pinProcess(server.child.pid!, 0);
		const metricsUrl = `${new URL(server.url).origin}/metrics`;
		return {
			...server,
			mode,
			name,
			databasePath,
			metricsUrl,
			/** Stops it; `removed`: its data with it. */
			async stop(removed = true) {
				try {
					if (mode === 'on') spansDropped += await droppedSpans(metricsUrl);
				} finally {
					// Stopped even when its count cannot be read (the run fails then): none is left running.
					await server.stop();
					if (removed) rmSync(databasePath, { force: true });
				}
			},
		};
	};
	type Server = Awaited<ReturnType<typeof start>>;
	/** A cell: `count` loads `server` for `seconds`, and answers the requests or deliveries done. */
	type Cell = { cell: string; count: (server: Server, seconds: number) => Promise<number> };
	/**
	 * `pair`, loaded together while taking turns: each one's requests or deliveries per second of
	 * running, how many it did, and the CPU time its threads spent meanwhile.
	 */
	const readPair = async (pair: readonly [Server, Server], cell: Cell, seconds: number) => {
		// Both modes are asked for `/metrics` (off answers 404): a server that only ever meets the
		// load generator runs Node's HTTP code specialised for that one client's requests, and the
		// first scrape's different request and answer deoptimise it for good. Asked of off too, both
		// serve two clients, as any server does, and what differs is only what on does.
		for (const { metricsUrl } of pair)
			peer.send({ scrape: { url: metricsUrl, token: TOKEN, everyMs: SCRAPE_EVERY_MS } });
		try {
			const pids = [pair[0].child.pid!, pair[1].child.pid!] as const;
			const before = pids.map(threadTimes);
			const { result, ran } = await inTurns(pids, () =>
				Promise.all(pair.map((server) => cell.count(server, seconds))),
			);
			return pids.map((pid, index) => ({
				rate: result[index] / ran[index],
				done: result[index],
				cpu: timesBetween(before[index], threadTimes(pid)),
			}));
		} finally {
			for (const { metricsUrl } of pair) peer.send({ unscrape: metricsUrl });
		}
	};
	/** `cells`, read on `rounds` rounds of servers on copies of `data`, as the comment above says. */
	const measure = async (
		kind: string,
		cells: Cell[],
		warmUpSeconds: number,
		data: string,
		prepare?: (databasePath: string, name: string) => void,
	): Promise<ObservabilityRow[]> => {
		const readings = cells.map(() => ({
			off: [] as number[],
			on: [] as number[],
			apart: { off: [[], []] as number[][], on: [[], []] as number[][] },
			/** Each mode's CPU time (ns) and requests or deliveries, over all its readings. */
			cpu: {
				off: { times: noThreadTimes(), done: 0 },
				on: { times: noThreadTimes(), done: 0 },
			},
		}));
		type Reading = Awaited<ReturnType<typeof readPair>>[number];
		const fleet = ['off', 'on', 'off', 'on'] as const;
		for (let round = 0; round < options.rounds; round++) {
			// Started in a rotating order: of four servers alike, started one after another, the first
			// read slowest in 3 rounds of 4, by up to 5 % (cause not found).
			const servers: Server[] = [];
			try {
				for (let index = 0; index < fleet.length; index++) {
					const at = (index + round) % fleet.length;
					const name = `${kind}-${round}-${at}-${fleet[at]}`;
					servers[at] = await start(fleet[at], name, data, (path) => prepare?.(path, name));
				}
				const [off0, on0, off1, on1] = servers;
				for (const cell of cells)
					for (const pair of [
						[off0, on0],
						[off1, on1],
					] as const)
						await readPair(pair, cell, 2 * warmUpSeconds);
				for (const [index, cell] of cells.entries()) {
					const cellReadings = readings[index];
					const count = (server: Server, { cpu, done }: Reading) => {
						const total = cellReadings.cpu[server.mode];
						addTimes(total.times, cpu);
						total.done += done;
					};
					for (const first of [true, false]) {
						for (const [off, on] of [
							[off0, on0],
							[off1, on1],
						] as const) {
							const [offReading, onReading] = first
								? await readPair([off, on], cell, options.seconds)
								: (await readPair([on, off], cell, options.seconds)).toReversed();
							cellReadings.off.push(offReading.rate);
							cellReadings.on.push(onReading.rate);
							count(off, offReading);
							count(on, onReading);
						}
						for (const [mode, twins] of [
							['off', [off0, off1]],
							['on', [on0, on1]],
						] as const) {
							const [a, b] = first
								? await readPair(twins, cell, options.seconds)
								: (await readPair([twins[1], twins[0]], cell, options.seconds)).toReversed();
							cellReadings.apart[mode][0].push(a.rate);
							cellReadings.apart[mode][1].push(b.rate);
							count(twins[0], a);
							count(twins[1], b);
						}
					}
				}
			} finally {
				await Promise.all(servers.map((server) => server?.stop()));
			}
		}
		return cells.map(({ cell }, index) => {
			const { off, on, apart, cpu } = readings[index];
			const ratio = ([first, second]: number[][]) => median(second) / median(first);
			const microsecondsEach = ({ times, done }: { times: ThreadTimes; done: number }) => {
				const each = noThreadTimes();
				for (const kind of THREAD_KINDS) each[kind] = times[kind] / 1000 / done;
				return each;
			};
			return {
				cell,
				off: Math.round(median(off)),
				on: Math.round(median(on)),
				apart: { off: ratio(apart.off), on: ratio(apart.on) },
				cpu: { off: microsecondsEach(cpu.off), on: microsecondsEach(cpu.on) },
			};
		});
	};
	try {
		const requestCell = (name: string): Cell => {
			const { name: cell, request } = overheadCell(name, seededData);
			return {
				cell,
				count: async (server, seconds) =>
					(
						await load({
							...request(server.url, boot.api_key),
							connections: options.connections,
							seconds,
							warmUp: false,
						})
					).requests,
			};
		};
		const rows = await measure(
			'requests',
			REQUEST_CELLS.map(requestCell),
			options.warmUpSeconds,
			seeded,
		);

		// Deliveries: an endpoint of the seeded organization and `backlog` changes queued to it while
		// no server runs; each server's copy points the endpoint at a gate of its own.
		const setup = await start('off', 'setup', seeded);
		const endpoint = await api(`${setup.url}/orgs/${boot.org.id}/webhooks`, boot.api_key, 'POST', {
			url: `${gates.url}/setup`,
			event_types: ['session.created'],
		});
		await setup.stop(false);
		seedSessions(setup.databasePath, boot, options.backlog);
		const delivery: Cell = {
			cell: 'webhook delivery',
			async count(server, seconds) {
				const arrived = await gates.open(server.name, seconds);
				if (gates.answered(server.name) >= options.backlog)
					throw new Error(`${server.name} ran out of its backlog of ${options.backlog}`);
				return arrived;
			},
		};
		rows.push(
			...(await measure(
				'deliveries',
				[delivery],
				options.deliveryWarmUpSeconds,
				setup.databasePath,
				(path, name) => pointEndpoint(path, boot, endpoint.id, `${gates.url}/${name}`),
			)),
		);
		// "On" that exported or scraped nothing would measure nothing.
		const tally = await peer.tally();
		if (tally.exports === 0 || tally.scrapes === 0 || spansDropped > 0)
			throw new Error(
				`metrics and traces on, but not every span was exported, or nothing reached the peer: ${JSON.stringify({ ...tally, spansDropped })}`,
			);
		return rows;
	} finally {
		gates.close();
		peer.stop();
		rmSync(dir, { recursive: true, force: true });
		if (CAN_PIN) pinProcess(process.pid, cpusBefore);
	}
}

/** What a server says it dropped of its spans (`traininglab_trace_spans_dropped_total`). */
async function droppedSpans(metricsUrl: string): Promise<number> {
	const text = await (
		await fetch(metricsUrl, { headers: { authorization: `Bearer ${TOKEN}` } })
	).text();
	return total(parseExposition(text), 'traininglab_trace_spans_dropped_total');
}

/**
 * bench/observability-peer.mts in a process of its own: the collector and the scraper. They stand
 * for other machines, so it runs at the lowest priority (nice 19): it takes the CPU that the server
 * and the load generator leave, and never the server's turn on a core.
 */
async function startPeer() {
	const child: ChildProcess = fork(new URL('./observability-peer.mts', import.meta.url), {
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
		execPath: 'nice',
		execArgv: ['-n', '19', process.execPath, ...process.execArgv],
	});
	const [ready] = (await once(child, 'message')) as [{ collector: string }];
	return {
		collectorUrl: ready.collector,
		send: (request: PeerRequest) => child.send(request),
		async tally(): Promise<PeerTally> {
			const answer = once(child, 'message');
			child.send({ tally: true } satisfies PeerRequest);
			return ((await answer) as [{ tally: PeerTally }])[0].tally;
		},
		stop: () => child.disconnect(),
	};
}
