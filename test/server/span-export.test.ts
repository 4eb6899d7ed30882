import { MessageChannel } from 'node:worker_threads';
import { sendThroughPort, type ExportMessage } from '../../server/src/observability/span-export.ts';

const body = () => Buffer.from(new SharedArrayBuffer(64)).subarray(8, 40);

describe('an export handed to the span export thread', () => {
	it('is read where it lies in shared memory, and done when the thread answers with its id', async () => {
		const { port1, port2 } = new MessageChannel();
		const send = sendThroughPort(port1);
		const exported = body().fill(7);
		const received = new Promise<ExportMessage>((resolve) => port2.once('message', resolve));
		let done = false;
		const sent = send(exported).then(() => (done = true));
		const message = await received;
		const seen = Buffer.from(message.memory, message.offset, message.length);
		expect(seen).toEqual(exported);
		// The same memory, not a copy: a byte written after it was handed over is read there.
		exported[0] = 9;
		expect(seen[0]).toBe(9);
		expect(done).toBe(false);
		port2.postMessage(message.id);
		await sent;
		expect(done).toBe(true);
		port2.close();
	});

	it('is dropped, and waits no longer, once the thread is gone', async () => {
		const { port1, port2 } = new MessageChannel();
		const send = sendThroughPort(port1);
		const unanswered = send(body());
		const closed = new Promise((resolve) => port1.once('close', resolve));
		port2.close();
		await closed;
		await unanswered;
		await send(body());
	});
});
