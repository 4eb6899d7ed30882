import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { MessagePort } from 'node:worker_threads';

/** How long one export may take before it is given up (its spans dropped). */
const EXPORT_TIMEOUT_MS = 5000;

/**
 * Sends one export (an `ExportTraceServiceRequest` in protobuf) and resolves once it has been
 * sent or given up; it never rejects. The caller reuses `body` once it resolves.
 */
export type SendExport = (body: Buffer) => Promise<void>;

/** `POST <endpoint>/v1/traces` from the thread that calls it. A failed or slow export is dropped. */
export function sendOverHttp(endpoint: string): SendExport {
	const url = new URL(`${endpoint.replace(/\/+$/, '')}/v1/traces`);
	const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
	return (body) =>
		new Promise((resolve) => {
			const req = request(
				url,
				{
					method: 'POST',
					headers: { 'content-type': 'application/x-protobuf', 'content-length': body.byteLength },
					timeout: EXPORT_TIMEOUT_MS,
				},
				(res) => {
					res.resume();
					res.on('end', resolve);
					res.on('error', resolve);
				},
			);
			req.on('timeout', () => req.destroy(new Error('OTLP export timed out')));
			req.on('error', () => resolve());
			req.end(body);
		});
}

/** One export, as a thread hands it to the span export thread: where its bytes are in shared memory. */
export interface ExportMessage {
	id: number;
	memory: SharedArrayBuffer;
	offset: number;
	length: number;
}

/**
 * Hands each export to the span export thread (span-export-thread.ts) through `port`, which sends
 * it and answers with its id once done. `body` must lie in a SharedArrayBuffer: the thread reads
 * it where it is, and nothing is copied. Should that thread be gone, exports are dropped.
 */
export function sendThroughPort(port: MessagePort): SendExport {
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
	// An export under way keeps nothing alive: the thread that waits on it has its own reasons to run.
	port.unref();
	return (body) => {
		if (closed) return Promise.resolve();
		const message: ExportMessage = {
			id: nextId++,
			// A batch's body is a SharedArrayBuffer's (otlp-protobuf.ts, SpanBatch).
			memory: body.buffer as SharedArrayBuffer,
			offset: body.byteOffset,
			length: body.byteLength,
		};
		return new Promise((resolve) => {
			waiting.set(message.id, resolve);
			port.postMessage(message);
		});
	};
}
