// Loaded into the API server by the soak benchmark (`node --import`; worker threads load it too,
// and it does nothing there). Appends to SOAK_PROBE_FILE, once a second, how long each request that
// finished in that second took inside the server (from its arrival to the last byte of its answer
// handed to the socket, in ms). On SIGUSR2 it forces a full garbage collection and records the V8 heap
// still live after it — what grows when something leaks, where the heap in use also swings with
// garbage not yet collected. Only when asked (the benchmark asks just before its measurement and just
// after it), so that V8 otherwise sizes its heap as it would without the probe.
import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isMainThread } from 'node:worker_threads';

const file = process.env.SOAK_PROBE_FILE;
if (file && isMainThread) {
	setFlagsFromString('--expose-gc');
	const collectGarbage = runInNewContext('gc');
	const twoDecimals = (value) => Math.round(value * 100) / 100;
	const arrivedAt = new WeakMap();
	let requestMs = [];
	subscribe('http.server.request.start', ({ response }) =>
		arrivedAt.set(response, performance.now()),
	);
	subscribe('http.server.response.finish', ({ response }) => {
		const arrived = arrivedAt.get(response);
		if (arrived !== undefined) requestMs.push(twoDecimals(performance.now() - arrived));
	});
	const record = (fields) =>
		appendFileSync(file, `${JSON.stringify({ at: Date.now(), ...fields })}\n`);
	setInterval(() => {
		record({ requestMs });
		requestMs = [];
	}, 1000).unref();
	process.on('SIGUSR2', () => {
		collectGarbage();
		record({ liveHeapMb: twoDecimals(process.memoryUsage().heapUsed / 1e6) });
	});
}
