import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawnServer } from '../tooling/api/server-process.ts';

// The soak's control. Two identical servers on one core, under the same load at the same time,
// spent the same CPU time per request to within 1–4 % every minute while that time moved by up to
// 26 % from one minute to the next (docs/performance.md): the machine's speed moves both alike. A
// fresh server beside the soaked one therefore reads the machine in every minute the soak measures,
// and the soaked server's latencies over the fresh one's read what a long run changed in the server
// (a leak, a growing database, a slower path), whatever the machine did meanwhile. A twin that had run
// as long would hide exactly that, so the control is started anew every minute, from a copy of the
// database the soaked server started from, and is always the same age: its own warm-up (V8
// compiling the hot paths) is in every minute alike, and the comparison leaves out the first
// quarter of each (FRESH_WARMUP_SHARE).

/** The part of each minute the control spends warming up, left out of the comparison. */
export const FRESH_WARMUP_SHARE = 0.25;

export interface FreshServer {
	url: string;
	/** Its probe's records (bench/soak-probe.mjs). */
	probeFile: string;
	/** When it had the control's load: from the start of its minute to the end. */
	from: number;
	to: number;
	/** Its requests still awaiting an answer. */
	inFlight: number;
	stop(): Promise<void>;
}

/** A copy of an SQLite database that no process has open (its WAL, if one is left, along). */
export function copyDatabase(from: string, to: string): void {
	copyFileSync(from, to);
	if (existsSync(`${from}-wal`)) copyFileSync(`${from}-wal`, `${to}-wal`);
}

/**
 * Starts the n-th fresh server in `dir` on a copy of `template`, with `env` (the soaked server's),
 * placed on the CPUs by `place`; `stop` also deletes its database unless `keep`.
 */
export async function startFreshServer(options: {
	n: number;
	template: string;
	dir: string;
	env: Record<string, string>;
	place: (pid: number) => void;
	keep: boolean;
}): Promise<FreshServer> {
	const databasePath = join(options.dir, `fresh-${options.n}.sqlite`);
	copyDatabase(options.template, databasePath);
	const probeFile = join(options.dir, `fresh-${options.n}.jsonl`);
	const server = await spawnServer({
		...options.env,
		DATABASE_PATH: databasePath,
		SOAK_PROBE_FILE: probeFile,
	});
	options.place(server.child.pid!);
	return {
		url: server.url,
		probeFile,
		from: Infinity,
		to: Infinity,
		inFlight: 0,
		async stop() {
			await server.stop();
			if (!options.keep)
				for (const file of [databasePath, `${databasePath}-wal`, `${databasePath}-shm`])
					rmSync(file, { force: true });
		},
	};
}
