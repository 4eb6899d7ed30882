import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { PeerRequest, PeerTally } from './observability-peer.mts';
import { spawnServer } from '../tooling/api/server-process.ts';
import { parseExposition, total } from '../tooling/prometheus-text.ts';
import { load } from './load.mts';
import { startGatedReceiver } from './gated-receiver.mts';
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

const TOKEN = 'bench-metrics-token-0123456789';

export interface ObservabilityRow {
	/** A request cell (`GET /me`, …) or `webhook delivery`. */
	cell: string;
	/** Requests or deliveries per second: the median of the readings, off and on. */
	off: number;
	on: number;
	/**
	 * How far the two servers of each mode in a round read apart (the second's median ÷ the
	 * first's), an A/A comparison: what this run cannot tell apart.
	 */
	apart: { off: number; on: number };
}

/**
 * What metrics and traces cost: the same server off (the defaults) and on (`METRICS_ENABLED`,
 * `/metrics` scraped every second while it is under load, spans exported to a collector that takes
 * them as fast as they come; both in a process of their own, bench/observability-peer.mts).
 *
 * Each cell is read on `rounds` rounds of fresh servers, each on its own copy of the same data and
 * kept running through the round: two off, two on. Each cell gets `warmUpSeconds` of load on each
 * before any is measured; then readings of `seconds` go round them and back (A B C D D C B A),
 * cell by cell. On this class of machine the speed of the whole machine wanders by several per cent
 * from one ten seconds to the next (the load generator's own CPU time per request with it):
 * readings seconds apart sample both modes alike. And a server keeps a speed of its own for its
 * life, a few per cent from another of the same build: each mode's figure is the median of its two
 * servers' readings over every round, so that more servers stand for each mode. The two of each
 * mode are also compared with each other: what this run cannot tell apart. An on server's last
 * partial batch of spans is exported within a second of its reading's end, during the next one:
 * at most 2,048 spans, about 0.1 % of a reading's CPU.
 *
 * Request cells: the throughput benchmark's four requests at `connections`. Deliveries: each
 * server holds a backlog of `backlog` deliveries to an endpoint of its own on a gated receiver,
 * which holds a server's sends unanswered while its gate is shut: the four keep their backlogs, and
 * each drains in its turn, for a reading's length: readings seconds apart sample both modes alike,
 * as they do for requests. (A drain of a fresh server each, as until 5112ee7, read the machine's
 * speed of its own few seconds: two drains of the same round read 0.88 to 1.19 × each other.)
 *
 * Both measure a server past its start. For its first half minute of load or so a server still
 * gets faster (V8 compiles its hot paths, its young generation grows), more slowly with metrics and
 * traces on. With 3 s of warm-up per cell (12 s of load on each server before its first reading),
 * `GET /me`, the first cell, read 0.945 × off (six rounds, each below 0.97); with 8 s (32 s of
 * load), 0.993 × (five rounds). The first is not what they cost a server that runs.
 */
export async function benchObservability(options: {
	rounds: number;
	seconds: number;
	warmUpSeconds: number;
	connections: number;
	sessions: number;
	backlog: number;
}): Promise<ObservabilityRow[]> {
	// Every server on CPU 0, with all its threads; the load generator, the receiver and the peer (a
	// child of this process, it inherits its CPUs) on CPU 1. What on adds outside the main thread
	// (the span export thread, V8's helpers collecting its garbage) then comes out of the server's
	// own core, as on a machine of its own, and not out of the time the load generator leaves idle;
	// and readings depend less on how the scheduler shares two cores between the server's threads
	// and the load generator's: two servers alike, eight 3 s readings of `GET /me` each, read 1.285
	// and 0.937 × each other unpinned, 1.018 and 1.079 × pinned (scratch, two runs each, on a
	// machine whose speed wandered by a third within a minute).
	const cpusBefore = CAN_PIN ? cpusOf(process.pid) : '';
	if (CAN_PIN) pinProcess(process.pid, 1);
	const dir = tempDir('observability');
	const seeded = join(dir, 'seeded.sqlite');
	const boot = bootstrap(seeded);
	const { versionId, sessionIds } = seedSessions(seeded, boot, options.sessions);
	const peer = await startPeer();
	const gates = await startGatedReceiver();
	const modes = {
		off: {},
		on: {
			METRICS_ENABLED: 'true',
			METRICS_TOKEN: TOKEN,
			OTEL_EXPORTER_OTLP_ENDPOINT: peer.collectorUrl,
		},
	} as const;
	type Mode = keyof typeof modes;
	/** Spans the servers on dropped (their ring full, an export failed): none, or on did less. */
	let spansDropped = 0;
	/**
	 * A server of `mode` on a copy of the data at `data`, which `prepare` may change first; when on,
	 * `scraped()` runs work while its `/metrics` is scraped every second.
	 */
	const start = async (
		mode: Mode,
		name: string,
		data: string,
		prepare?: (databasePath: string) => void,
	) => {
		const databasePath = join(dir, `${name}.sqlite`);
		copyFileSync(data, databasePath);
		prepare?.(databasePath);
		const server = await spawnServer({
			DATABASE_PATH: databasePath,
			RATE_LIMIT_REQUESTS: '1000000000',
			WEBHOOK_ALLOW_INSECURE_URLS: 'true',
			// A shut gate holds a server's sends for as long as the other servers' turns take.
			WEBHOOK_TIMEOUT_MS: '600000',
			...modes[mode],
		});
		if (CAN_PIN) pinProcess(server.child.pid!, 0);
		const metricsUrl = `${new URL(server.url).origin}/metrics`;
		return {
			...server,
			name,
			databasePath,
			async scraped<T>(work: () => Promise<T>): Promise<T> {
				if (mode !== 'on') return work();
				peer.send({ scrape: { url: metricsUrl, token: TOKEN } });
				try {
					return await work();
				} finally {
					peer.send({ unscrape: metricsUrl });
				}
			},
			/** Stops it; `removed`: its data with it. */
			async stop(removed = true) {
				if (mode === 'on') spansDropped += await droppedSpans(metricsUrl);
				await server.stop();
				if (removed) rmSync(databasePath, { force: true });
			},
		};
	};
	type Server = Awaited<ReturnType<typeof start>>;
	/** A cell: `read` loads `server` for `seconds` and answers requests or deliveries per second. */
	type Cell = { cell: string; read: (server: Server, seconds: number) => Promise<number> };
	// Each round's servers: two of each mode, the second of a mode read like the first.
	const fleet = [
		{ mode: 'off', twin: 0 },
		{ mode: 'on', twin: 0 },
		{ mode: 'off', twin: 1 },
		{ mode: 'on', twin: 1 },
	] as const;
	/** `cells`, read on `rounds` fleets of servers on copies of `data`, as the comment above says. */
	const measure = async (
		kind: string,
		cells: Cell[],
		data: string,
		prepare?: (databasePath: string, name: string) => void,
	): Promise<ObservabilityRow[]> => {
		const readings = cells.map(() => ({
			off: [[], []] as number[][],
			on: [[], []] as number[][],
		}));
		for (let round = 0; round < options.rounds; round++) {
			// Started in a rotating order: of four servers alike, started one after another, the first
			// read slowest in 3 rounds of 4, by up to 5 % (cause not found).
			const starting = fleet.map((_, index, all) => all[(index + round) % all.length]);
			const servers = new Map<(typeof fleet)[number], Server>();
			for (const which of starting) {
				const name = `${kind}-${round}-${which.mode}-${which.twin}`;
				servers.set(which, await start(which.mode, name, data, (path) => prepare?.(path, name)));
			}
			const around = round % 2 === 0 ? fleet : fleet.toReversed();
			try {
				const read = (which: (typeof fleet)[number], cell: Cell, seconds: number) => {
					const server = servers.get(which)!;
					return server.scraped(() => cell.read(server, seconds));
				};
				for (const cell of cells)
					for (const which of around) await read(which, cell, options.warmUpSeconds);
				for (const [index, cell] of cells.entries())
					for (const which of [...around, ...around.toReversed()])
						readings[index][which.mode][which.twin].push(await read(which, cell, options.seconds));
			} finally {
				await Promise.all([...servers.values()].map((server) => server.stop()));
			}
		}
		return cells.map(({ cell }, index) => {
			const { off, on } = readings[index];
			return {
				cell,
				off: median(off.flat()),
				on: median(on.flat()),
				apart: { off: median(off[1]) / median(off[0]), on: median(on[1]) / median(on[0]) },
			};
		});
	};
	try {
		const requestCell = (
			cell: string,
			path: string,
			request?: Pick<Parameters<typeof load>[0], 'method' | 'body'>,
		): Cell => ({
			cell,
			read: async (server, seconds) =>
				(
					await load({
						url: `${server.url}${path}`,
						key: boot.api_key,
						connections: options.connections,
						seconds,
						warmUp: false,
						...request,
					})
				).requestsPerSecond,
		});
		const rows = await measure(
			'requests',
			[
				requestCell('GET /me', '/me'),
				requestCell('GET /sessions/{id}', `/sessions/${sessionIds[sessionIds.length >> 1]}`),
				requestCell('GET /sessions?limit=100', '/sessions?limit=100'),
				requestCell('POST /sessions', '/sessions', {
					method: 'POST',
					body: { title: 'Load', lab_version_id: versionId, capacity: 20 },
				}),
			],
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
			async read(server, seconds) {
				const perSecond = await gates.open(server.name, seconds);
				if (gates.answered(server.name) >= options.backlog)
					throw new Error(`${server.name} ran out of its backlog of ${options.backlog}`);
				return perSecond;
			},
		};
		rows.push(
			...(await measure('deliveries', [delivery], setup.databasePath, (path, name) =>
				pointEndpoint(path, boot, endpoint.id, `${gates.url}/${name}`),
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
