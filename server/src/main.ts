import { loadConfig } from './config.ts';
import { consoleLogger, startServer } from './server.ts';

try {
	const server = await startServer(loadConfig(process.env));
	consoleLogger.info(`listening on ${server.url}`);
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
