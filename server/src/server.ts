import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { API_PREFIX, createApp } from './app.ts';
import type { Config } from './config.ts';
import { checkpointOffThread } from './db/checkpoints.ts';
import { openDatabase, type Database } from './db/connection.ts';
import { takeTurnsWriting } from './db/transaction.ts';
import { WriteLock } from './db/write-lock.ts';
import { systemClock, type Clock } from './core/clock.ts';
import type { Logger } from './core/logger.ts';
import { createHttpServer } from './http/edge.ts';
import { CURSOR_KEY_BYTES, CursorSeal } from './core/cursor-seal.ts';
import { createRepositories } from './repositories/index.ts';
import { createServices, type Services } from './services/index.ts';
import { createDeliverySide } from './outbox/delivery-side.ts';
import { DeliveryThread } from './outbox/thread.ts';
import { ServerMetrics } from './observability/metrics.ts';
import { exportFromThisThread, exportThroughThread } from './observability/span-export.ts';
import { SpanExportThread } from './observability/span-export-thread.ts';
import { Tracing } from './observability/tracing.ts';

const HOUR_MS = 60 * 60 * 1000;
const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningServer {
	/** Base URL of the API where it listens, e.g. http://127.0.0.1:3000/api/v1 */
	url: string;
	/** Base URL of the API for clients (from PUBLIC_URL, else the listen address); every emitted URL starts with it. */
	publicUrl: string;
	port: number;
	db: Database;
	services: Services;
	/** Resolves once every webhook delivery queued so far has had its attempt (retries still scheduled aside). */
	webhooksIdle(): Promise<void>;
	/**
	 * Ends the outbox's thread at once, as a crash would; the server starts it again (for tests of
	 * that). Undefined when the outbox runs on the event loop.
	 */
	killOutboxThread?: () => Promise<void>;
	/** The same for the span export thread; undefined when traces are not exported from one. */
	killSpanExportThread?: () => Promise<void>;
	/**
	 * Stops accepting connections, lets in-flight requests finish (with `Connection: close`), aborts
	 * webhook sends in flight (they are sent again at the next start), closes the database.
	 */
	close(): Promise<void>;
}

export const consoleLogger: Logger = {
	info: (message) => console.log(message),
	error: (message, error) =>
		console.error(message, error instanceof Error ? error.stack : (error ?? '')),
};

/**
 * The server's worker threads, as URLs (the caller's module system knows where they are):
 * ./db/checkpoint-worker.ts, where SQLite's WAL checkpoints and their fsyncs run instead of inside
 * requests (./db/checkpoints.ts), ./outbox/worker.ts, where webhooks are signed, sent and
 * recorded (./outbox/thread.ts), and ./observability/span-export-worker.ts, where both threads'
 * spans are sent from when an OTLP endpoint is set.
 */
export interface WorkerUrls {
	checkpoints: URL;
	outbox: URL;
	spanExport: URL;
}

/**
 * The composition root: the database, services, the webhook outbox and the HTTP server, wired
 * together. Without `workers` (or with an in-memory database, which has one connection) the
 * checkpoints are SQLite's own and the outbox runs on the event loop.
 */
export async function startServer(
	config: Config,
	logger: Logger = consoleLogger,
	clock: Clock = systemClock,
	workers?: WorkerUrls,
	/** The built web console (`npm run build:console`), served at /console. */
	consoleDir?: string,
): Promise<RunningServer> {
	const db = openDatabase(config.databasePath);
	const onThreads = workers !== undefined && !db.memory;
	const writeLock = new WriteLock();
	const checkpoints = onThreads
		? checkpointOffThread(db, workers.checkpoints, logger, { writeLock })
		: undefined;
	const spanExport =
		onThreads && config.otlp
			? new SpanExportThread(workers.spanExport, config.otlp, logger)
			: undefined;
	const exportsHere = !spanExport && config.otlp ? exportFromThisThread(config.otlp) : undefined;
	const tracing = new Tracing({
		exports: spanExport ? exportThroughThread(spanExport.port()) : exportsHere,
	});
	const outboxOptions = { ...config.webhooks, clock, tracing, counted: config.metrics.enabled };
	if (onThreads) takeTurnsWriting(db, writeLock);
	const onEventLoop = onThreads ? undefined : createDeliverySide(db, outboxOptions, logger);
	const outbox = onThreads
		? new DeliveryThread(
				workers.outbox,
				{
					databasePath: db.name,
					options: config.webhooks,
					clock: clock.shared,
					checkpointsElsewhere: true,
					counted: config.metrics.enabled,
				},
				writeLock,
				logger,
				spanExport && (() => spanExport.port()),
			)
		: startedOnEventLoop(onEventLoop!.dispatcher);
	const repos = createRepositories(db);
	// Only when served: prom-client's process metrics keep a timer that wakes the server 100 times
	// a second, idle or not.
	const metrics = config.metrics.enabled
		? new ServerMetrics(
				repos.outbox.backlog,
				clock,
				outbox instanceof DeliveryThread
					? outbox
					: {
							deliveryMetrics: async () => (await onEventLoop!.metrics?.registry.metrics()) ?? '',
						},
				spanExport?.lost ?? exportsHere?.lost,
			)
		: undefined;
	const services = createServices(
		db,
		{
			allowInsecureWebhookUrls: config.webhooks.allowInsecureUrls,
			webhookDnsTimeoutMs: config.webhooks.dnsTimeoutMs,
			retention: config.retention,
			outbox,
			clock,
			tracing,
		},
		repos,
	);
	// Upkeep, hourly (more often with a retention under a day): expired idempotency keys, endpoints
	// held too long and event consumers idle too long (their reader gone), and events and deliveries past their retention, in
	// batches between which requests run. A failure (a full disk, say) is logged and tried again.
	let closed = false;
	/** The upkeep running now, if one is: the next waits for it to end rather than piling up. */
	let upkeepRun: Promise<void> | undefined;
	const betweenBatches = () =>
		new Promise<boolean>((resolve) => setImmediate(() => resolve(!closed)));
	const upkeep = () => {
		upkeepRun ??= (async () => {
			try {
				services.idempotency.purgeExpired();
				services.webhookEndpoints.deleteLongHeld();
				services.eventConsumers.deleteIdle();
				await services.retention.prune(betweenBatches);
			} catch (error) {
				if (!closed) logger.error('upkeep failed', error);
			} finally {
				upkeepRun = undefined;
			}
		})();
	};
	upkeep();
	const upkeepEveryMs = Math.max(1000, Math.min(HOUR_MS, services.retention.shortestMs / 24));
	const upkeepTimer = setInterval(upkeep, upkeepEveryMs);
	upkeepTimer.unref();

	const cursors = new CursorSeal(
		repos.serverKeys.getOrCreate('cursor', () => randomBytes(CURSOR_KEY_BYTES)),
	);
	let publicUrl = '';
	const app = createApp({
		config,
		services,
		logger,
		clock,
		cursors,
		publicUrl: () => publicUrl,
		consoleDir,
		metrics,
		tracing,
	});
	const http = createHttpServer(app, config.http);
	try {
		await new Promise<void>((resolve, reject) => {
			http.server.once('error', reject);
			http.server.listen(config.port, config.host, () => {
				http.server.off('error', reject);
				resolve();
			});
		});
	} catch (error) {
		closed = true;
		clearInterval(upkeepTimer);
		await upkeepRun;
		await outbox.stop();
		await checkpoints?.stop();
		await tracing.shutdown();
		await spanExport?.stop();
		db.close();
		throw error;
	}
	const { port } = http.server.address() as AddressInfo;
	const host = config.host.includes(':') ? `[${config.host}]` : config.host;
	const listenUrl = `http://${host}:${port}`;
	publicUrl = config.publicUrl ?? listenUrl;

	let closing: Promise<void> | undefined;
	const close = (): Promise<void> => {
		closing ??= (async () => {
			closed = true;
			clearInterval(upkeepTimer);
			await upkeepRun;
			await http.shutdown(SHUTDOWN_GRACE_MS);
			await outbox.stop();
			await checkpoints?.stop();
			await tracing.shutdown();
			await spanExport?.stop();
			db.close();
		})();
		return closing;
	};

	return {
		url: `${listenUrl}${API_PREFIX}`,
		publicUrl: `${publicUrl}${API_PREFIX}`,
		port,
		db,
		services,
		webhooksIdle: () => outbox.whenIdle(),
		killOutboxThread: outbox instanceof DeliveryThread ? () => outbox.kill() : undefined,
		killSpanExportThread: spanExport && (() => spanExport.kill()),
		close,
	};
}

function startedOnEventLoop<T extends { start(): void }>(dispatcher: T): T {
	dispatcher.start();
	return dispatcher;
}
