import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { CursorSeal } from '../server/src/core/cursor-seal.ts';
import { load, type LoadResult } from './load.mts';
import { bootstrap, seedSessions, tempDir } from './support.mts';
import { spawnServer } from '../tooling/api/server-process.ts';

export interface ScalingRow {
	rows: number;
	read: string;
	result: LoadResult;
}

/** The same reads with 1,000 / 10,000 / 100,000 sessions and events: latency should not grow. */
export async function benchScaling(sizes: number[], seconds: number): Promise<ScalingRow[]> {
	const results: ScalingRow[] = [];
	for (const size of sizes) {
		const dir = tempDir('scaling');
		const databasePath = join(dir, 'db.sqlite');
		const boot = bootstrap(databasePath);
		const { sessionIds } = seedSessions(databasePath, boot, size);
		const server = await spawnServer({
			DATABASE_PATH: databasePath,
			RATE_LIMIT_REQUESTS: '1000000000',
		});
		// Keyset cursors near the far end of each list: a deep page must cost what the first one does.
		// Cursors are sealed with the database's own key, made when the server first started.
		const db = new Database(databasePath, { readonly: true });
		const seal = new CursorSeal(
			(
				db.prepare("SELECT key FROM server_keys WHERE name = 'cursor'").get() as { key: Buffer }
			).key,
		);
		db.close();
		const deepSessions = seal.seal(size - 150, `${boot.org.id} /sessions`);
		const deepEvents = seal.seal(150, `${boot.org.id} /orgs/${boot.org.id}/events`);
		const reads = [
			['GET /sessions/{id}', `/sessions/${sessionIds[Math.floor(size / 2)]}`],
			['GET /sessions?limit=100 (first page)', '/sessions?limit=100'],
			['GET /sessions?limit=100 (last pages)', `/sessions?limit=100&cursor=${deepSessions}`],
			[
				'GET /events?limit=100 (last pages)',
				`/orgs/${boot.org.id}/events?limit=100&cursor=${deepEvents}`,
			],
		];
		try {
			for (const [read, path] of reads) {
				results.push({
					rows: size,
					read,
					result: await load({
						url: `${server.url}${path}`,
						key: boot.api_key,
						connections: 10,
						seconds,
					}),
				});
			}
		} finally {
			await server.stop();
			rmSync(dir, { recursive: true, force: true });
		}
	}
	return results;
}
