// The webhook outbox's thread (./thread.ts starts it): its own connection to the database, its
// dispatcher signing, sending and recording every attempt, so that none of that work runs on the
// event loop that answers requests. The server tells it when deliveries are queued.
import { parentPort, workerData } from 'node:worker_threads';
import { sharedClock, systemClock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { exportThroughThread } from '../observability/span-export.ts';
import { Tracing } from '../observability/tracing.ts';
import { openDatabase } from '../db/connection.ts';
import { takeTurnsWriting } from '../db/transaction.ts';
import { WriteLock } from '../db/write-lock.ts';
import { createDeliverySide } from './delivery-side.ts';
import type { FromDeliveryWorker, ToDeliveryWorker, DeliveryWorkerData } from './thread.ts';

const data = workerData as DeliveryWorkerData;
const port = parentPort!;
const tell = (message: FromDeliveryWorker) => port.postMessage(message);
const logger: Logger = {
	info: (message) => tell({ type: 'log', level: 'info', message }),
	error: (message, error) =>
		tell({
			type: 'log',
			level: 'error',
			message,
			error: error instanceof Error ? (error.stack ?? error.message) : String(error ?? ''),
		}),
};

const db = openDatabase(data.databasePath);
// WAL checkpoints are the checkpoint worker's, where there is one.
if (data.checkpointsElsewhere) db.pragma('wal_autocheckpoint = 0');
// Its writes take turns with the request thread's, which goes first.
takeTurnsWriting(db, new WriteLock(data.writeLock, false));
const clock = data.clock ? sharedClock(data.clock) : systemClock;
const tracing = new Tracing({
	exports: data.spanExport ? exportThroughThread(data.spanExport) : undefined,
});
const { dispatcher, metrics } = createDeliverySide(
	db,
	{ ...data.options, clock, tracing, counted: data.counted },
	logger,
);
dispatcher.start();
// What it is doing, should it die: the server's log then says how many sends it cut short.
const report = setInterval(() => tell({ type: 'in-flight', inFlight: dispatcher.inFlight }), 1000);
report.unref();

port.on('message', async (message: ToDeliveryWorker) => {
	if (message.type === 'wake') dispatcher.wake();
	else if (message.type === 'idle') {
		await dispatcher.whenIdle();
		tell({ type: 'idle', id: message.id });
	} else if (message.type === 'metrics') {
		tell({
			type: 'metrics',
			id: message.id,
			metrics: (await metrics?.registry.metrics()) ?? '',
		});
	} else if (message.type === 'stop') {
		clearInterval(report);
		await dispatcher.stop();
		await tracing.shutdown();
		db.close();
		tell({ type: 'stopped' });
		port.close();
	}
});
