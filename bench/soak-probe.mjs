// Loaded into the API server by the soak benchmark (`node --import`). Appends to SOAK_PROBE_FILE, once
// a second: the event-loop delay of that second (p50, p99, max, in ms); how long each request that
// finished in that second took inside the server (from its arrival to the last byte of its answer
// handed to the socket, in ms); the time V8's garbage collector held the thread in that second (its
// total and its longest pause, in ms); and memory in MB: the V8 heap in use and committed, and memory
// outside it held by JavaScript objects. On SIGUSR2 it forces a full garbage collection and records
// the heap still live after it — what grows when something leaks, where the heap in use also swings
// with garbage not yet collected. Only when asked (the benchmark asks just before its measurement and
// just after it), so that V8 otherwise sizes its heap as it would without the probe.
import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const file = process.env.SOAK_PROBE_FILE;
if (file) {
	setFlagsFromString('--expose-gc');
	const collectGarbage = runInNewContext('gc');
	const histogram = monitorEventLoopDelay({ resolution: 10 });
	histogram.enable();
	const twoDecimals = (value) => Math.round(value * 100) / 100;
	const ms = (ns) => twoDecimals(ns / 1e6);
	const mb = (bytes) => twoDecimals(bytes / 1e6);
	const arrivedAt = new WeakMap();
	let requestMs = [];
	subscribe('http.server.request.start', ({ response }) =>
		arrivedAt.set(response, performance.now()),
	);
	subscribe('http.server.response.finish', ({ response }) => {
		const arrived = arrivedAt.get(response);
		if (arrived !== undefined) requestMs.push(twoDecimals(performance.now() - arrived));
	});
	let gcPauses = [];
	new PerformanceObserver((list) => {
		for (const entry of list.getEntries()) gcPauses.push(entry.duration);
	}).observe({ entryTypes: ['gc'] });
	const record = (fields) =>
		appendFileSync(file, `${JSON.stringify({ at: Date.now(), ...fields })}\n`);
	setInterval(() => {
		const memory = process.memoryUsage();
		record({
			p50: ms(histogram.percentile(50)),
			p99: ms(histogram.percentile(99)),
			max: ms(histogram.max),
			heapMb: mb(memory.heapUsed),
			heapTotalMb: mb(memory.heapTotal),
			externalMb: mb(memory.external),
			requestMs,
			gcMs: twoDecimals(gcPauses.reduce((sum, pause) => sum + pause, 0)),
			longestGcMs: twoDecimals(Math.max(0, ...gcPauses)),
		});
		histogram.reset();
		requestMs = [];
		gcPauses = [];
	}, 1000).unref();
	process.on('SIGUSR2', () => {
		collectGarbage();
		record({ liveHeapMb: mb(process.memoryUsage().heapUsed) });
	});
}
