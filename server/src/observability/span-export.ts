import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { MessagePort } from 'node:worker_threads';
import type { OtlpTarget } from '../otlp-config.ts';
import { OtlpExporter, type SendExport } from './otlp-exporter.ts';
import { spanRing } from './span-ring.ts';
import type { SpansLost } from './spans-lost.ts';

/** How long one export may take before it is given up (its spans dropped). */
const EXPORT_TIMEOUT_MS = 5000;

/**
 * `POST <url>` with the target's headers, from the thread that calls it. A failed or slow export is
 * dropped.
 */
export function sendOverHttp({ url, headers }: Pick<OtlpTarget, 'url' | 'headers'>): SendExport {
	const target = new URL(url);
	const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
	return (body) =>
		new Promise<boolean>((resolve) => {
			const req = request(
				target,
				{
					method: 'POST',
					headers: {
						...headers,
						'content-type': 'application/x-protobuf',
						'content-length': body.byteLength,
					},
					timeout: EXPORT_TIMEOUT_MS,
				},
				(res) => {
					const accepted = res.statusCode! >= 200 && res.statusCode! < 300;
					res.resume();
					res.on('end', () => resolve(accepted));
					res.on('error', () => resolve(false));
				},
			);
			req.on('timeout', () => req.destroy(new Error('OTLP export timed out')));
			req.on('error', () => resolve(false));
			req.end(body);
		});
}

/**
 * Where one thread's ended spans go: the ring it writes them into (span-records.ts), read by an
 * exporter on this thread or on the span export thread.
 */
export interface SpanExports {
	ring: SharedArrayBuffer;
	/** Resolves once the spans written so far have been sent (or given up); it never rejects. */
	flush(): Promise<void>;
	/** Flushes, then reads no more. */
	close(): Promise<void>;
}

/** Spans exported from this thread, over HTTP: when the server runs without threads. */
export function exportFromThisThread(target: OtlpTarget): SpanExports & { lost: SpansLost } {
	const exporter = new OtlpExporter(sendOverHttp(target), { resource: target.resource });
	const ring = spanRing();
	exporter.read(ring);
	return {
		ring,
		lost: exporter.lost,
		flush: () => exporter.flush(),
		close: () => exporter.stop(),
	};
}

/** What a thread tells the span export thread: here is its ring; send what it holds (answered by the id). */
export type ToSpanExportThread = { ring: SharedArrayBuffer } | { flush: number };

/**
 * Spans exported by the span export thread (span-export-worker.ts), which reads this thread's ring:
 * `port` (SpanExportThread.port) takes the ring and each flush there. Should the port close, a
 * flush resolves at once.
 */
export function exportThroughThread(port: MessagePort): SpanExports {
	const ring = spanRing();
	const waiting = new Map<number, () => void>();
	let nextId = 0;
	let closed = false;
	port.on('message', (id: number) => {
		waiting.get(id)?.();
		waiting.delete(id);
	});
	port.on('close', () => {
		closed = true;
		for (const done of waiting.values()) done();
		waiting.clear();
	});
	// A flush under way keeps nothing alive: the thread that waits on it has its own reasons to run.
	port.unref();
	port.postMessage({ ring } satisfies ToSpanExportThread);
	const flush = () => {
		if (closed) return Promise.resolve();
		const id = nextId++;
		return new Promise<void>((resolve) => {
			waiting.set(id, resolve);
			port.postMessage({ flush: id } satisfies ToSpanExportThread);
		});
	};
	return { ring, flush, close: flush };
}
