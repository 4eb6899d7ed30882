// The span export thread (./span-export-thread.ts starts it): it puts every thread's spans
// together into OTLP exports and sends them, so that no request, and no delivery, spends its time
// on either. Each thread writes its ended spans, in OTLP's protobuf, into a ring of shared memory
// and hands it over (./span-export.ts); one exporter reads them all.
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThisThreadsPriority } from '../lib/thread-priority.ts';
import { OtlpExporter } from './otlp-exporter.ts';
import { sendOverHttp } from './span-export.ts';
import type {
	FromSpanExportWorker,
	SpanExportThreadData,
	ToSpanExportWorker,
} from './span-export-thread.ts';
import { SpansLost } from './spans-lost.ts';

/**
 * Nice levels below the threads that answer requests and deliver: when the CPU is short, spans
 * wait in their rings (16 MiB each) rather than requests waiting. At this level it still gets about
 * a tenth of a contended core, several times what exporting 13,000 spans a second takes.
 */
const BELOW_THE_SERVER = 10;
lowerThisThreadsPriority(BELOW_THE_SERVER);

const data = workerData as SpanExportThreadData;
const exporter = new OtlpExporter(sendOverHttp(data.target), {
	resource: data.target.resource,
	lost: new SpansLost(data.lost),
});

/**
 * Each writing thread's messages, passed on by the server's thread with its channel's number: its
 * ring, then its flushes, each answered once done, and `closed` when that thread has ended (an
 * outbox thread that died): its ring is read to its end, then let go.
 */
const endReading = new Map<number, () => void>();
parentPort!.on('message', async (message: ToSpanExportWorker) => {
	if ('ring' in message) endReading.set(message.channel, exporter.read(message.ring));
	else if ('closed' in message) {
		endReading.get(message.channel)?.();
		endReading.delete(message.channel);
	} else {
		await exporter.flush();
		parentPort!.postMessage({
			channel: message.channel,
			flushed: message.flush,
		} satisfies FromSpanExportWorker);
	}
});
