// A worker thread the soak's probe starts inside the API server: every 10 ms it reads which system
// call the server's main thread is in (/proc/<pid>/task/<pid>/syscall), and when the thread has sat
// in the same call for 100 ms or more — blocked, its event loop stopped — it appends, once the call
// returns, the call, the file it was on and how long it lasted. A stall with the main thread neither
// on a CPU nor waiting for one is such a call; this names it (a checkpoint's fsync, a write to the
// WAL, …).
import { appendFileSync, readFileSync, readlinkSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { workerData } from 'node:worker_threads';

const { file, pid } = workerData;
const SAMPLE_MS = 10;
const REPORT_FROM_MS = 100;
// x86-64 numbers of the calls a blocked SQLite or Node main thread can sit in.
const NAMES = {
	0: 'read',
	1: 'write',
	3: 'close',
	17: 'pread64',
	18: 'pwrite64',
	20: 'writev',
	72: 'fcntl',
	74: 'fsync',
	75: 'fdatasync',
	76: 'truncate',
	77: 'ftruncate',
	87: 'unlink',
	202: 'futex',
	257: 'openat',
};
// The event loop waiting for work: idle, not blocked.
const IDLE = new Set([7, 232, 281, 441]);
const FD_CALLS = new Set([0, 1, 3, 17, 18, 20, 72, 74, 75, 77]);

let current; // { line, since, call, fd }
for (;;) {
	let line;
	try {
		line = readFileSync(`/proc/${pid}/task/${pid}/syscall`, 'utf8').trim();
	} catch {
		break; // the process is ending
	}
	const now = performance.now();
	if (current?.line !== line) {
		if (current && now - current.since >= REPORT_FROM_MS) report(current, now);
		const [nr, firstArgument] = line.split(' ');
		const number = Number(nr);
		current =
			line === 'running' || !Number.isInteger(number) || number < 0 || IDLE.has(number)
				? undefined
				: { line, since: now, number, fd: Number(firstArgument) };
		// A blocked call's file, read while the call is still in progress.
		if (current && FD_CALLS.has(number)) current.file = fileOf(current.fd);
	}
	await sleep(SAMPLE_MS);
}

function fileOf(fd) {
	try {
		return readlinkSync(`/proc/${pid}/fd/${fd}`).split('/').pop();
	} catch {
		return undefined;
	}
}

function report(call, now) {
	const name = NAMES[call.number] ?? `syscall ${call.number}`;
	appendFileSync(
		file,
		`${JSON.stringify({
			at: Date.now(),
			blockedIn: call.file ? `${name}(${call.file})` : name,
			blockedMs: Math.round(now - call.since),
		})}\n`,
	);
}
