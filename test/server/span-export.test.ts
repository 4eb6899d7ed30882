import { MessageChannel } from 'node:worker_threads';
import { SpanExportThread } from '../../server/src/observability/span-export-thread.ts';
import {
	exportThroughThread,
	type ToSpanExportThread,
} from '../../server/src/observability/span-export.ts';
import { workers } from '../support/test-server.ts';

describe("a thread's spans, exported by the span export thread", () => {
	it('hands over its ring first, and a flush is done when the thread answers its id', async () => {
		const { port1, port2 } = new MessageChannel();
		const messages: ToSpanExportThread[] = [];
		const twoReceived = new Promise((resolve) =>
			port2.on('message', (message: ToSpanExportThread) => {
				if (messages.push(message) === 2) resolve(undefined);
			}),
		);
		const exports = exportThroughThread(port1);
		let done = false;
		const flushed = exports.flush().then(() => (done = true));
		await twoReceived;
		expect(messages).toEqual([{ ring: exports.ring }, { flush: 0 }]);
		// The same memory, not a copy: what this thread writes, the export thread reads.
		const seen = (messages[0] as { ring: SharedArrayBuffer }).ring;
		new Uint8Array(exports.ring)[100] = 9;
		expect(new Uint8Array(seen)[100]).toBe(9);
		expect(done).toBe(false);
		port2.postMessage(0);
		await flushed;
		expect(done).toBe(true);
		port2.close();
	});

	it('waits no longer for a flush once the thread is gone', async () => {
		const { port1, port2 } = new MessageChannel();
		const exports = exportThroughThread(port1);
		const unanswered = exports.flush();
		const closed = new Promise((resolve) => port1.once('close', resolve));
		port2.close();
		await closed;
		await unanswered;
		await exports.close();
	});

	it('waits no longer for a flush once the span export thread is stopped', async () => {
		const thread = new SpanExportThread(
			workers.spanExport,
			{ url: 'http://127.0.0.1:9/v1/traces', headers: {}, resource: {} },
			{ info() {}, error() {} },
		);
		const exports = exportThroughThread(thread.port());
		await thread.stop();
		await exports.flush();
	});
});
