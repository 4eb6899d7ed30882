import { configurationHelp, loadConfig } from './config.ts';
import { systemClock } from './core/clock.ts';
import { fileURLToPath } from 'node:url';
import { consoleUrlOf } from './http/console.ts';
import { consoleLogger, startServer } from './server.ts';

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
	console.log(configurationHelp());
	process.exit(0);
}
if (args.length > 0) {
	console.error(
		`Unknown argument: ${args[0]} (the server takes none; it is configured by environment variables)\n`,
	);
	console.error(configurationHelp());
	process.exit(2);
}

try {
	const config = loadConfig(process.env);
	const workers = {
		checkpoints: new URL('./db/checkpoint-worker.ts', import.meta.url),
		outbox: new URL('./outbox/worker.ts', import.meta.url),
		spanExport: new URL('./observability/span-export-worker.ts', import.meta.url),
	};
	const consoleDir = fileURLToPath(new URL('../../build/console', import.meta.url));
	const server = await startServer(config, consoleLogger, systemClock, workers, consoleDir).catch(
		(error: NodeJS.ErrnoException) => {
			throw listenError(error, config.host, config.port) ?? error;
		},
	);
	consoleLogger.info(`listening on ${server.url}`);
	consoleLogger.info(`console at ${consoleUrlOf(server.url)}`);
	const shutdown = (signal: string): void => {
		consoleLogger.info(`${signal} received, shutting down`);
		server.close().then(() => process.exit(0));
	};
	process.once('SIGTERM', () => shutdown('SIGTERM'));
	process.once('SIGINT', () => shutdown('SIGINT'));
} catch (error) {
	console.error(error instanceof Error ? error.message : error);
	process.exit(1);
}

/** What to do when the server cannot listen where it was told to, or undefined for other errors. */
function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error | undefined {
	if (error.code === 'EADDRINUSE')
		return new Error(
			`Port ${port} on ${host} is already in use. Stop what listens there, or start on another port: PORT=${port + 1} npm start (PORT=0 takes any free port).`,
		);
	if (error.code === 'EACCES')
		return new Error(
			`Not allowed to listen on port ${port} of ${host}. Choose a port above 1023: PORT=3000 npm start.`,
		);
	if (error.code === 'EADDRNOTAVAIL')
		return new Error(
			`${host} is not an address of this machine. Set HOST to one of its addresses (HOST=127.0.0.1).`,
		);
	return undefined;
}
