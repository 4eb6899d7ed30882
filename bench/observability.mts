import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { PeerRequest, PeerTally } from './observability-peer.mts';
import { spawnServer } from '../tooling/api/server-process.ts';
import { load, type LoadResult } from './load.mts';
import {
	api,
	bootstrap,
	eventually,
	median,
	seedSessions,
	startReceiver,
	tempDir,
} from './support.mts';

const TOKEN = 'bench-metrics-token-0123456789';

export interface ObservabilityRow {
	/** A request cell (`GET /me`, …) or `webhook delivery`. */
	cell: string;
	/** Requests or deliveries per second: the median of the rounds, off and on. */
	off: number;
	on: number;
}

/**
 * What metrics and traces cost: the same server off (the defaults) and on (`METRICS_ENABLED`,
 * `/metrics` scraped every second, spans exported to a collector that takes them as fast as they
 * come; both in a process of their own, bench/observability-peer.mts), in interleaved rounds
 * (A B B A), each round on a fresh server of each mode with its own copy of the same data.
 * Cells: the throughput benchmark's four requests at `connections`, and a drain of `backlog`
 * deliveries to one endpoint. Both measure a server past its start: the request cells once each
 * has had `warmUpSeconds` of its own load, all of them before the first is measured, and the drain
 * after `backlog` deliveries more. For its first ten seconds or so a server still gets faster
 * (V8 compiles its hot paths, its young generation grows), more slowly with metrics and traces on:
 * `GET /me` measured from 3 s after a start read 0.95 × off, from 9 s 0.965 ×. That is not what
 * they cost a server that runs.
 */
export async function benchObservability(options: {
	rounds: number;
	seconds: number;
	warmUpSeconds: number;
	connections: number;
	sessions: number;
	backlog: number;
}): Promise<ObservabilityRow[]> {
	const dir = tempDir('observability');
	const seeded = join(dir, 'seeded.sqlite');
	const boot = bootstrap(seeded);
	const { versionId, sessionIds } = seedSessions(seeded, boot, options.sessions);
	const peer = await startPeer();
	const receiver = await startReceiver({ recordArrivals: false });
	const modes = {
		off: {},
		on: {
			METRICS_ENABLED: 'true',
			METRICS_TOKEN: TOKEN,
			OTEL_EXPORTER_OTLP_ENDPOINT: peer.collectorUrl,
		},
	} as const;
	type Mode = keyof typeof modes;
	/** A server of `mode` on its own copy of the seeded data, scraped every second when on. */
	const start = async (mode: Mode, name: string) => {
		const databasePath = join(dir, `${name}-${mode}.sqlite`);
		copyFileSync(seeded, databasePath);
		const server = await spawnServer({
			DATABASE_PATH: databasePath,
			RATE_LIMIT_REQUESTS: '1000000000',
			WEBHOOK_ALLOW_INSECURE_URLS: 'true',
			...modes[mode],
		});
		const metricsUrl = `${new URL(server.url).origin}/metrics`;
		if (mode === 'on') peer.send({ scrape: { url: metricsUrl, token: TOKEN } });
		return {
			...server,
			databasePath,
			async stop() {
				if (mode === 'on') peer.send({ unscrape: metricsUrl });
				await server.stop();
			},
		};
	};
	const order = (round: number): Mode[] => (round % 2 === 0 ? ['off', 'on'] : ['on', 'off']);
	const rows: ObservabilityRow[] = [];
	try {
		const cells = [
			{ cell: 'GET /me', path: '/me' },
			{ cell: 'GET /sessions/{id}', path: `/sessions/${sessionIds[sessionIds.length >> 1]}` },
			{ cell: 'GET /sessions?limit=100', path: '/sessions?limit=100' },
			{
				cell: 'POST /sessions',
				path: '/sessions',
				method: 'POST' as const,
				body: { title: 'Load', lab_version_id: versionId, capacity: 20 },
			},
		];
		// A fresh server of each mode every round: two servers of the same build differ by a few
		// per cent in CPU per request, as much as what is measured here, so rounds sample servers too.
		const results = cells.map(() => ({ off: [] as LoadResult[], on: [] as LoadResult[] }));
		for (let round = 0; round < options.rounds; round++)
			for (const mode of order(round)) {
				const server = await start(mode, `requests-${round}`);
				try {
					const loadOf = ({ path, method, body }: (typeof cells)[number], seconds: number) =>
						load({
							url: `${server.url}${path}`,
							key: boot.api_key,
							connections: options.connections,
							seconds,
							warmUp: false,
							method,
							body,
						});
					for (const cell of cells) await loadOf(cell, options.warmUpSeconds);
					for (const [index, cell] of cells.entries())
						results[index][mode].push(await loadOf(cell, options.seconds));
				} finally {
					await server.stop();
					rmSync(server.databasePath, { force: true });
				}
			}
		for (const [index, { cell }] of cells.entries())
			rows.push({
				cell,
				off: median(results[index].off.map((result) => result.requestsPerSecond)),
				on: median(results[index].on.map((result) => result.requestsPerSecond)),
			});

		// Deliveries: an endpoint of the seeded organization, twice `backlog` changes queued while no
		// server runs, then a server of each mode drains its copy; deliveries per second over the
		// second half.
		const setup = await start('off', 'setup');
		await api(`${setup.url}/orgs/${boot.org.id}/webhooks`, boot.api_key, 'POST', {
			url: `${receiver.url}/drain`,
			event_types: ['session.created'],
		});
		await setup.stop();
		seedSessions(setup.databasePath, boot, 2 * options.backlog);
		copyFileSync(setup.databasePath, seeded);
		const drains: Record<Mode, number[]> = { off: [], on: [] };
		for (let round = 0; round < options.rounds; round++)
			for (const mode of order(round)) {
				const before = receiver.received();
				const server = await start(mode, `drain-${round}`);
				let warm = 0;
				await eventually(
					() => {
						const received = receiver.received() - before;
						if (received >= options.backlog && warm === 0) warm = Date.now();
						return received >= 2 * options.backlog;
					},
					'the backlog to drain',
					{ timeoutMs: 600_000, intervalMs: 2 },
				);
				const seconds = (Date.now() - warm) / 1000;
				drains[mode].push(Math.round(options.backlog / Math.max(seconds, 0.001)));
				await server.stop();
				rmSync(server.databasePath, { force: true });
			}
		rows.push({ cell: 'webhook delivery', off: median(drains.off), on: median(drains.on) });
		// "On" that exported or scraped nothing would measure nothing.
		const tally = await peer.tally();
		if (tally.exports === 0 || tally.scrapes === 0)
			throw new Error(
				`metrics and traces on, but nothing reached the peer: ${JSON.stringify(tally)}`,
			);
		return rows;
	} finally {
		receiver.server.close();
		peer.stop();
		rmSync(dir, { recursive: true, force: true });
	}
}

/** bench/observability-peer.mts in a process of its own: the collector and the scraper. */
async function startPeer() {
	const child: ChildProcess = fork(new URL('./observability-peer.mts', import.meta.url), {
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
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
