import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { OtlpTarget } from '../otlp-config.ts';
import type { Logger } from '../core/logger.ts';
import { SpansLost } from './spans-lost.ts';

/** What the span export thread starts with: where to send, and where to count what it drops. */
export interface SpanExportThreadData {
	target: OtlpTarget;
	lost: SharedArrayBuffer;
}

/**
 * Where spans are exported from when the server runs on threads: a thread of its own
 * (./span-export-worker.ts, at `workerUrl`), which reads the spans each thread writes into its
 * ring: encoded and sent on the thread that answers requests, they took about half of what tracing
 * cost it (docs/performance.md).
 */
export class SpanExportThread {
	/** What the thread counts of the spans it could not send. */
	readonly lost = new SpansLost();
	readonly #worker: Worker;

	constructor(workerUrl: URL, target: OtlpTarget, logger: Logger) {
		this.#worker = new Worker(workerUrl, {
			workerData: { target, lost: this.lost.memory } satisfies SpanExportThreadData,
		});
		this.#worker.on('error', (error) => logger.error('the span export thread failed', error));
		// Stopped with the server; it never keeps a process alive by itself.
		this.#worker.unref();
	}

	/** A port for one thread's spans (`exportThroughThread`): transfer it to that thread. */
	port(): MessagePort {
		const { port1, port2 } = new MessageChannel();
		this.#worker.postMessage({ port: port2 }, [port2]);
		return port1;
	}

	/** Once every exporter has flushed: what is still being sent is dropped. */
	async stop(): Promise<void> {
		await this.#worker.terminate();
	}
}
