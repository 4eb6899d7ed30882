import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { OtlpTarget } from '../otlp-config.ts';
import type { Logger } from '../core/logger.ts';
import { RestartPolicy, startingAgain } from '../lib/restart-policy.ts';
import type { ToSpanExportThread } from './span-export.ts';
import { SpansLost } from './spans-lost.ts';

/** What the span export thread starts with: where to send, and where to count what it drops. */
export interface SpanExportThreadData {
	target: OtlpTarget;
	lost: SharedArrayBuffer;
}

/** A writing thread's message, passed on to the span export thread with its channel's number. */
export type ToSpanExportWorker = { channel: number } & (ToSpanExportThread | { closed: true });

/** The span export thread's answer to a flush. */
export interface FromSpanExportWorker {
	channel: number;
	flushed: number;
}

/** One writing thread's channel, as this thread keeps it to hand over again. */
interface Channel {
	port: MessagePort;
	ring?: SharedArrayBuffer;
	/** Flushes not yet answered. */
	flushes: Set<number>;
}

/**
 * Where spans are exported from when the server runs on threads: a thread of its own
 * (./span-export-worker.ts, at `workerUrl`), which reads the spans each thread writes into its
 * ring and sends them: sent from the thread that answers requests, exports took about half of what
 * tracing cost it (docs/performance.md).
 *
 * Each writing thread's port (`port`) ends here, and its messages are passed on: a thread that dies
 * is logged and started again (RestartPolicy), and the new one is handed every ring, and every
 * flush still unanswered. It reads each ring from where the one that died stopped (the positions
 * live in the ring); the spans that one had read and not yet sent are lost, uncounted.
 */
export class SpanExportThread {
	/** What the thread counts of the spans it could not send: kept across its starts. */
	readonly lost = new SpansLost();
	readonly #workerUrl: URL;
	readonly #logger: Logger;
	readonly #data: SpanExportThreadData;
	readonly #channels = new Map<number, Channel>();
	readonly #restarts = new RestartPolicy();
	#nextChannel = 0;
	#worker!: Worker;
	#stopping = false;

	constructor(workerUrl: URL, target: OtlpTarget, logger: Logger) {
		this.#workerUrl = workerUrl;
		this.#logger = logger;
		this.#data = { target, lost: this.lost.memory };
		this.#start();
	}

	/** A port for one thread's spans (`exportThroughThread`): transfer it to that thread. */
	port(): MessagePort {
		const { port1, port2 } = new MessageChannel();
		const number = this.#nextChannel++;
		const channel: Channel = { port: port2, flushes: new Set() };
		this.#channels.set(number, channel);
		port2.on('message', (message: ToSpanExportThread) => {
			if ('ring' in message) channel.ring = message.ring;
			else channel.flushes.add(message.flush);
			this.#send({ channel: number, ...message });
		});
		// The writing thread has ended: its ring is read to its end, then let go.
		port2.once('close', () => {
			this.#channels.delete(number);
			if (!this.#stopping) this.#send({ channel: number, closed: true });
		});
		// Like the thread itself, a channel never keeps the process alive.
		port2.unref();
		return port1;
	}

	/** Ends the thread at once, as a crash would: it is started again (for tests of that). */
	async kill(): Promise<void> {
		await this.#worker.terminate();
	}

	/**
	 * Once every exporter has flushed: what is still being sent is dropped, and each channel is
	 * closed, so that a flush still waiting is done at once.
	 */
	async stop(): Promise<void> {
		this.#stopping = true;
		this.#restarts.cancel();
		await this.#worker.terminate();
		for (const { port } of this.#channels.values()) port.close();
	}

	#start(): void {
		this.#restarts.started();
		const worker = new Worker(this.#workerUrl, { workerData: this.#data });
		this.#worker = worker;
		worker.on('message', ({ channel, flushed }: FromSpanExportWorker) => {
			const waiting = this.#channels.get(channel);
			if (waiting?.flushes.delete(flushed)) waiting.port.postMessage(flushed);
		});
		worker.on('error', (error) => this.#logger.error('the span export thread failed', error));
		worker.once('exit', (code) => {
			if (this.#stopping) return;
			const delay = this.#restarts.delayAfterDeath();
			this.#logger.error(
				`the span export thread stopped (exit code ${code}); ${startingAgain(delay)}`,
			);
			this.#restarts.startAfter(delay, () => this.#start());
		});
		// Stopped with the server; it never keeps a process alive by itself.
		worker.unref();
		for (const [number, { ring, flushes }] of this.#channels) {
			if (ring) this.#send({ channel: number, ring });
			for (const flush of flushes) this.#send({ channel: number, flush });
		}
	}

	#send(message: ToSpanExportWorker): void {
		this.#worker.postMessage(message);
	}
}
