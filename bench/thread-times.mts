import { readdirSync, readFileSync } from 'node:fs';

/** A Node process's threads, by what they do. */
export const THREAD_KINDS = ['main thread', 'worker threads', "V8's helpers", 'other'] as const;
export type ThreadKind = (typeof THREAD_KINDS)[number];
export type ThreadTimes = Record<ThreadKind, number>;

export const noThreadTimes = (): ThreadTimes => ({
	'main thread': 0,
	'worker threads': 0,
	"V8's helpers": 0,
	other: 0,
});

/**
 * The CPU time, in nanoseconds, that the threads of the process `pid` have run so far (Linux: the
 * first field of `/proc/<pid>/task/<tid>/schedstat`, in ns, where `stat` counts 10 ms ticks), by
 * kind: the main thread, Node's worker threads (the server's outbox, span export and checkpoint
 * threads), V8's helpers (collecting garbage, compiling) and the rest (libuv's pool, the
 * inspector's signal thread). A thread that ended between two readings takes its time with it.
 * Elsewhere than on Linux, nothing.
 */
export function threadTimes(pid: number): ThreadTimes {
	const times = noThreadTimes();
	if (process.platform !== 'linux') return times;
	for (const tid of readdirSync(`/proc/${pid}/task`)) {
		try {
			const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
			const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
			times[threadKindOf(tid === String(pid), name)] += ns;
		} catch {
			// The thread ended while it was read.
		}
	}
	return times;
}

/** A thread's kind, from whether it is its process's main thread and its name (`comm`). */
export function threadKindOf(main: boolean, name: string): ThreadKind {
	if (main) return 'main thread';
	if (name === 'WorkerThread') return 'worker threads';
	if (name.startsWith('V8') || name === 'DelayedTaskSche') return "V8's helpers";
	return 'other';
}

/** What was spent between two readings, kind by kind. */
export function timesBetween(before: ThreadTimes, after: ThreadTimes): ThreadTimes {
	const spent = noThreadTimes();
	for (const kind of THREAD_KINDS) spent[kind] = after[kind] - before[kind];
	return spent;
}

/** `times` added to `into`, kind by kind. */
export function addTimes(into: ThreadTimes, times: ThreadTimes): void {
	for (const kind of THREAD_KINDS) into[kind] += times[kind];
}
