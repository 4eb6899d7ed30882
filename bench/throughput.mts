import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { load, type LoadResult } from './load.mts';
import { median, ROOT, bootstrap, loadSession, seedSessions, tempDir } from './support.mts';
import { spawnServer } from '../tooling/api/server-process.ts';

export interface ThroughputRow {
	endpoint: string;
	connections: number;
	ours: LoadResult;
	baseline: LoadResult;
}

async function startBaseline(
	databasePath: string,
): Promise<{ url: string; stop(): Promise<void> }> {
	const child = spawn(process.execPath, ['bench/baseline-server.mts'], {
		cwd: ROOT,
		env: { ...process.env, DATABASE_PATH: databasePath },
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const url = await new Promise<string>((resolve) => {
		let out = '';
		child.stdout!.on('data', (chunk) => {
			out += chunk;
			const match = /listening on (\S+)/.exec(out);
			if (match) resolve(match[1]);
		});
	});
	const exited = new Promise((resolve) => child.on('exit', resolve));
	return {
		url,
		stop: async () => {
			child.kill('SIGTERM');
			await exited;
		},
	};
}

/** The median of each figure over the rounds of one contender. */
function medianOf(results: LoadResult[]): LoadResult {
	return {
		requestsPerSecond: median(results.map((result) => result.requestsPerSecond)),
		requests: median(results.map((result) => result.requests)),
		p50Ms: median(results.map((result) => result.p50Ms)),
		p99Ms: median(results.map((result) => result.p99Ms)),
		errors: results.reduce((sum, result) => sum + result.errors, 0),
	};
}

/**
 * Our server against the bare baseline, each in its own process, same database and data. For each
 * cell the two alternate over `rounds` rounds of `seconds` (which goes first alternates too), so a
 * busy moment of the machine lands on both; each figure is the median of its rounds.
 */
export async function benchThroughput(options: {
	rounds: number;
	seconds: number;
	sessions: number;
	connections: number[];
	warmUp: boolean;
}): Promise<ThroughputRow[]> {
	const { rounds, seconds } = options;
	const dir = tempDir('throughput');
	const databasePath = join(dir, 'db.sqlite');
	const boot = bootstrap(databasePath);
	const { versionId, sessionIds } = seedSessions(databasePath, boot, options.sessions);
	const ours = await spawnServer({
		DATABASE_PATH: databasePath,
		RATE_LIMIT_REQUESTS: '1000000000',
	});
	const baseline = await startBaseline(databasePath);
	const rows: ThroughputRow[] = [];
	try {
		const scenarios = [
			{ endpoint: 'GET /me', path: '/me' },
			{
				endpoint: 'GET /sessions/{id}',
				path: `/sessions/${sessionIds[Math.floor(sessionIds.length / 2)]}`,
			},
			{ endpoint: 'GET /sessions?limit=100', path: '/sessions?limit=100' },
			{
				endpoint: 'POST /sessions',
				path: '/sessions',
				method: 'POST' as const,
				body: loadSession(versionId),
			},
		];
		for (const scenario of scenarios) {
			for (const connections of options.connections) {
				const common = {
					key: boot.api_key,
					connections,
					seconds,
					method: scenario.method,
					body: scenario.body,
				};
				const urls = { ours: ours.url, baseline: baseline.url };
				const results: Record<keyof typeof urls, LoadResult[]> = { ours: [], baseline: [] };
				for (let round = 0; round < rounds; round++) {
					const order =
						round % 2 === 0 ? (['ours', 'baseline'] as const) : (['baseline', 'ours'] as const);
					for (const contender of order)
						results[contender].push(
							await load({
								...common,
								url: `${urls[contender]}${scenario.path}`,
								warmUp: options.warmUp && round === 0,
							}),
						);
				}
				rows.push({
					endpoint: scenario.endpoint,
					connections,
					ours: medianOf(results.ours),
					baseline: medianOf(results.baseline),
				});
			}
		}
	} finally {
		await ours.stop();
		await baseline.stop();
		rmSync(dir, { recursive: true, force: true });
	}
	return rows;
}
