import { Worker, type MessagePort } from 'node:worker_threads';
import type { Logger } from '../core/logger.ts';
import { RestartPolicy, startingAgain } from '../lib/restart-policy.ts';
import type { DeliveryMetricsSource } from '../observability/metrics.ts';
import type { WriteLock } from '../db/write-lock.ts';
import type { DispatcherOptions } from './dispatcher.ts';
import type { OutboxNotice } from './notice.ts';

/** What the outbox's thread starts with (`workerData`). */
export interface DeliveryWorkerData {
	databasePath: string;
	options: DispatcherOptions & { retryScheduleSeconds: readonly number[] };
	/** The server's clock when it is not the system's (a test's): its shared time. */
	clock?: SharedArrayBuffer;
	/** WAL checkpoints run on the checkpoint worker: the thread's connection makes none. */
	checkpointsElsewhere: boolean;
	/** The write lock both threads' transactions take in turn (db/write-lock.ts). */
	writeLock: SharedArrayBuffer;
	/** Where the thread's spans go: its port to the span export thread; undefined: nowhere. */
	spanExport?: MessagePort;
	/** Whether the thread counts its attempts: only when `/metrics` is on. */
	counted: boolean;
}

export type ToDeliveryWorker =
	| { type: 'wake' }
	| { type: 'idle'; id: number }
	| { type: 'metrics'; id: number }
	| { type: 'stop' };

export type FromDeliveryWorker =
	| { type: 'log'; level: 'info' | 'error'; message: string; error?: string }
	| { type: 'in-flight'; inFlight: number }
	| { type: 'idle'; id: number }
	| { type: 'metrics'; id: number; metrics: string }
	| { type: 'stopped' };

/**
 * The webhook outbox on a thread of its own (./worker.ts, at `workerUrl`), apart from the event
 * loop that answers requests: the request side records events and deliveries and tells it
 * (`deliveriesQueued`); it never signs, sends or records an attempt. A thread that dies is logged
 * with what it was doing and started again (RestartPolicy: at once, or after a delay when it keeps
 * dying as it starts): the new one takes over the claims the dead one left (at least once, as after
 * a crash).
 */
export class DeliveryThread implements OutboxNotice, DeliveryMetricsSource {
	readonly #workerUrl: URL;
	readonly #data: DeliveryWorkerData;
	readonly #logger: Logger;
	readonly #writeLock: WriteLock;
	readonly #spanExportPort: (() => MessagePort) | undefined;
	readonly #restarts = new RestartPolicy();
	#worker!: Worker;
	/** Sends in flight, as the thread last said. */
	#inFlight = 0;
	#wakeScheduled = false;
	#stopping: Promise<void> | undefined;
	#nextRequestId = 0;
	readonly #idleWaits = new Map<number, () => void>();
	readonly #metricsWaits = new Map<number, (metrics: string) => void>();

	/** `spanExportPort` gives each start of the thread its port to the span export thread. */
	constructor(
		workerUrl: URL,
		data: Omit<DeliveryWorkerData, 'writeLock' | 'spanExport'>,
		writeLock: WriteLock,
		logger: Logger,
		spanExportPort?: () => MessagePort,
	) {
		this.#workerUrl = workerUrl;
		this.#data = { ...data, writeLock: writeLock.buffer };
		this.#writeLock = writeLock;
		this.#logger = logger;
		this.#spanExportPort = spanExportPort;
		this.#start();
	}

	/** Wakes the outbox once the caller's transaction has committed (on a later turn of the event loop). */
	deliveriesQueued(): void {
		if (this.#wakeScheduled || this.#stopping) return;
		this.#wakeScheduled = true;
		setImmediate(() => {
			this.#wakeScheduled = false;
			this.#send({ type: 'wake' });
		});
	}

	/** Resolves once every delivery queued so far has had its attempt (retries later aside). */
	whenIdle(): Promise<void> {
		return new Promise((resolve) => {
			const id = this.#nextRequestId++;
			this.#idleWaits.set(id, resolve);
			// After a wake still scheduled: the thread reads the messages in order.
			setImmediate(() => this.#send({ type: 'idle', id }));
		});
	}

	/**
	 * What the thread has counted (DeliveryMetrics); nothing from a thread that died before
	 * answering, or while none runs.
	 */
	deliveryMetrics(): Promise<string> {
		if (this.#stopping || this.#restarts.waiting) return Promise.resolve('');
		return new Promise((resolve) => {
			const id = this.#nextRequestId++;
			this.#metricsWaits.set(id, resolve);
			this.#send({ type: 'metrics', id });
		});
	}

	/**
	 * Ends the thread at once, as a crash would: it is started again, and sends again what it had
	 * in flight. For tests of that.
	 */
	async kill(): Promise<void> {
		await this.#worker.terminate();
	}

	/** Stops the thread: it stops claiming and aborts its sends in flight (sent again at the next start). */
	stop(): Promise<void> {
		if (!this.#stopping && this.#restarts.waiting) {
			// No thread runs: there is nothing to stop but its next start.
			this.#restarts.cancel();
			this.#stopping = Promise.resolve();
		}
		this.#stopping ??= new Promise<void>((resolve) => {
			this.#worker.once('exit', () => resolve());
			this.#send({ type: 'stop' });
		});
		return this.#stopping;
	}

	#start(): void {
		this.#restarts.started();
		const spanExport = this.#spanExportPort?.();
		const worker = new Worker(this.#workerUrl, {
			workerData: { ...this.#data, spanExport },
			transferList: spanExport ? [spanExport] : [],
		});
		// Read now: once the thread has ended its id reads -1.
		const workerThreadId = worker.threadId;
		this.#worker = worker;
		worker.on('message', (message: FromDeliveryWorker) => this.#received(message));
		worker.on('error', (error) => this.#logger.error('the webhook outbox thread failed', error));
		worker.once('exit', (code) => {
			this.#writeLock.releaseFor(workerThreadId);
			if (this.#stopping) return;
			const delay = this.#restarts.delayAfterDeath();
			this.#logger.error(
				`the webhook outbox thread stopped (exit code ${code}) with about ${this.#inFlight} sends in flight; ${startingAgain(delay)}`,
			);
			this.#inFlight = 0;
			for (const answer of this.#metricsWaits.values()) answer('');
			this.#metricsWaits.clear();
			this.#restarts.startAfter(delay, () => this.#start());
		});
		// What waited on one that died asks this one.
		for (const id of this.#idleWaits.keys()) this.#send({ type: 'idle', id });
	}

	#received(message: FromDeliveryWorker): void {
		if (message.type === 'log') {
			if (message.level === 'info') this.#logger.info(message.message);
			else this.#logger.error(message.message, message.error);
		} else if (message.type === 'in-flight') this.#inFlight = message.inFlight;
		else if (message.type === 'idle') {
			this.#idleWaits.get(message.id)?.();
			this.#idleWaits.delete(message.id);
		} else if (message.type === 'metrics') {
			this.#metricsWaits.get(message.id)?.(message.metrics);
			this.#metricsWaits.delete(message.id);
		}
	}

	#send(message: ToDeliveryWorker): void {
		this.#worker.postMessage(message);
	}
}
