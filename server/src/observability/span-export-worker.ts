// The span export thread (./span-export-thread.ts starts it): it sends every thread's exports to
// the OTLP endpoint, so that no request, and no delivery, waits while one is sent. Each thread
// writes its spans into shared memory and hands over where they are (./span-export.ts).
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { sendOverHttp, type ExportMessage } from './span-export.ts';

const send = sendOverHttp((workerData as { endpoint: string }).endpoint);

/** A port of one thread's exporter: its exports, sent in the order they come, each answered by its id. */
function serve(port: MessagePort): void {
	port.on('message', async ({ id, memory, offset, length }: ExportMessage) => {
		await send(Buffer.from(memory, offset, length));
		port.postMessage(id);
	});
}

parentPort!.on('message', (message: { port: MessagePort }) => serve(message.port));
