// Loaded into the API server by the soak benchmark (`node --import`; worker threads load it too,
// and it does nothing there). Appends to SOAK_PROBE_FILE, once a second: the event-loop delay of
// that second (p50, p99, max, in ms: how late its 10 ms sampling timer ran); how long each request
// that finished in that second took inside the server (from its arrival to the last byte of its
// answer handed to the socket, in ms); the time V8's garbage collector held the thread in that
// second (its total and its longest pause, in ms); where the main thread's time went (on a CPU, or
// ready to run and waiting for one; the rest it slept — idle, or blocked in a system call such as an
// fsync); the machine's time stolen by the hypervisor and spent waiting for the disk (summed over
// its CPUs, in ms); the size of the database's WAL (MB); and memory in MB: the V8 heap in use and
// committed, and memory outside it held by JavaScript objects. Its worker (soak-syscall-watch.mjs)
// adds a record for each system call the main thread sat blocked in for 100 ms or more. On SIGUSR2
// it forces a full garbage collection and records the heap still live after it — what grows when
// something leaks, where the heap in use also swings with garbage not yet collected. Only when asked
// (the benchmark asks just before its measurement and just after it), so that V8 otherwise sizes its
// heap as it would without the probe.
import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isMainThread, Worker } from 'node:worker_threads';
import { delayMs, eventLoopHistogram } from './event-loop-delay.mts';

const file = process.env.SOAK_PROBE_FILE;
if (file && isMainThread) {
	setFlagsFromString('--expose-gc');
	const collectGarbage = runInNewContext('gc');
	// Names the system call behind a stall the main thread spent blocked (see the file).
	new Worker(new URL('./soak-syscall-watch.mjs', import.meta.url), {
		workerData: { file, pid: process.pid },
	}).unref();
	const histogram = eventLoopHistogram();
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
	// Nanoseconds the main thread has run on a CPU, and waited ready to run, since it started.
	const mainThread = () => {
		const [onCpu, waiting] = readFileSync('/proc/self/schedstat', 'utf8').split(' ').map(Number);
		return { onCpu, waiting };
	};
	// The machine's I/O wait and steal since boot, in ticks of 10 ms summed over its CPUs.
	const machine = () => {
		const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
		return { ioWait: ticks[5], steal: ticks[8] };
	};
	const walPath = `${process.env.DATABASE_PATH}-wal`;
	const walSize = () => statSync(walPath, { throwIfNoEntry: false })?.size ?? 0;
	let lastThread = mainThread();
	let lastMachine = machine();
	const record = (fields) =>
		appendFileSync(file, `${JSON.stringify({ at: Date.now(), ...fields })}\n`);
	setInterval(() => {
		const memory = process.memoryUsage();
		const thread = mainThread();
		const now = machine();
		record({
			p50: delayMs(histogram.percentile(50)),
			p99: delayMs(histogram.percentile(99)),
			max: delayMs(histogram.max),
			heapMb: mb(memory.heapUsed),
			heapTotalMb: mb(memory.heapTotal),
			externalMb: mb(memory.external),
			requestMs,
			gcMs: twoDecimals(gcPauses.reduce((sum, pause) => sum + pause, 0)),
			longestGcMs: twoDecimals(Math.max(0, ...gcPauses)),
			onCpuMs: ms(thread.onCpu - lastThread.onCpu),
			waitingForCpuMs: ms(thread.waiting - lastThread.waiting),
			stealMs: (now.steal - lastMachine.steal) * 10,
			ioWaitMs: (now.ioWait - lastMachine.ioWait) * 10,
			walMb: mb(walSize()),
		});
		lastThread = thread;
		lastMachine = now;
		histogram.reset();
		requestMs = [];
		gcPauses = [];
	}, 1000).unref();
	process.on('SIGUSR2', () => {
		collectGarbage();
		record({ liveHeapMb: mb(process.memoryUsage().heapUsed) });
	});
}
