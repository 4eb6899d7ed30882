// Loaded into the API server by the soak benchmark (`node --import`): once a second, appends to
// SOAK_PROBE_FILE the event-loop delay of that second (p50, p99, max, in ms) and the V8 heap in use
// (MB), with the time.
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.SOAK_PROBE_FILE;
if (file) {
	const histogram = monitorEventLoopDelay({ resolution: 10 });
	histogram.enable();
	const ms = (ns) => Math.round(ns / 1e4) / 100;
	setInterval(() => {
		appendFileSync(
			file,
			`${JSON.stringify({
				at: Date.now(),
				p50: ms(histogram.percentile(50)),
				p99: ms(histogram.percentile(99)),
				max: ms(histogram.max),
				heapMb: Math.round(process.memoryUsage().heapUsed / 1e4) / 100,
			})}\n`,
		);
		histogram.reset();
	}, 1000).unref();
}
