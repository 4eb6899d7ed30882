import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../../tooling/root.ts';
import { loadConfig } from '../../server/src/config.ts';
import { startServer, type RunningServer } from '../../server/src/server.ts';
import type { Clock } from '../../server/src/core/clock.ts';
import type { Logger } from '../../server/src/core/logger.ts';

export interface TestServer extends RunningServer {
	dir: string;
	databasePath: string;
	/** Everything the server logged, to check that nothing secret ever is. */
	logs: string[];
	stop(): Promise<void>;
}

/** The worker threads main.ts passes. */
export const workers = {
	checkpoints: pathToFileURL(join(ROOT, 'server', 'src', 'db', 'checkpoint-worker.ts')),
	outbox: pathToFileURL(join(ROOT, 'server', 'src', 'outbox', 'worker.ts')),
	spanExport: pathToFileURL(join(ROOT, 'server', 'src', 'observability', 'span-export-worker.ts')),
};

/** The real server on a free port with a real SQLite file in a fresh temp folder. */
export async function startTestServer(
	env: Record<string, string> = {},
	options: { clock?: Clock; consoleDir?: string } = {},
): Promise<TestServer> {
	const dir = mkdtempSync(join(tmpdir(), 'traininglab-test-'));
	const databasePath = join(dir, 'traininglab.sqlite');
	const logs: string[] = [];
	const logger: Logger = {
		info: (message) => logs.push(message),
		error: (message, error) =>
			logs.push(
				error === undefined
					? message
					: `${message} ${error instanceof Error ? error.stack : String(error)}`,
			),
	};
	let server: RunningServer;
	try {
		server = await startServer(
			loadConfig({ DATABASE_PATH: databasePath, PORT: '0', ...env }),
			logger,
			options.clock,
			workers,
			options.consoleDir,
		);
	} catch (error) {
		rmSync(dir, { recursive: true, force: true });
		throw error;
	}
	return {
		...server,
		dir,
		databasePath,
		logs,
		async stop() {
			await server.close();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}
