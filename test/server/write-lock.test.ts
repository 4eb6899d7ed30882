import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { WriteLock } from '../../server/src/db/write-lock.ts';
import type { DispatcherOptions } from '../../server/src/outbox/dispatcher.ts';
import { DeliveryThread } from '../../server/src/outbox/thread.ts';
import { ROOT } from '../../tooling/root.ts';

// The server's threads take turns at writing, the request thread first: a thread that writes back
// to back (the outbox) lets it in as soon as its own transaction ends, never starting another while
// it waits. A pause of the others (the checkpoint thread's) does not hold the request thread. And a
// thread that dies holding the lock, or pausing, does not keep it.
const holder = pathToFileURL(join(ROOT, 'test', 'support', 'write-lock-holder.ts'));
const pauser = pathToFileURL(join(ROOT, 'test', 'support', 'write-lock-pauser.ts'));

/** A lock whose other writers a thread of its own has paused, until `signals[1]` is set. */
function startPausing() {
	const lock = new WriteLock();
	const signals = new Int32Array(new SharedArrayBuffer(8));
	const worker = new Worker(pauser, { workerData: { lock: lock.buffer, signals: signals.buffer } });
	while (Atomics.load(signals, 0) === 0) Atomics.wait(signals, 0, 0, 1000);
	return { lock, signals, worker };
}

it('lets the waiting request thread in before the other thread takes the lock again', async () => {
	const lock = new WriteLock();
	const steps = new Int32Array(new SharedArrayBuffer(4 * 8));
	const worker = new Worker(holder, { workerData: { lock: lock.buffer, steps: steps.buffer } });
	const record = (step: number) => Atomics.store(steps, Atomics.add(steps, 0, 1) + 1, step);
	try {
		// The other thread holds it.
		while (Atomics.load(steps, 0) < 1) Atomics.wait(steps, 0, 0, 1000);
		// Told to let go while this thread waits in acquire(): it lets go, asks again at once, and waits.
		worker.postMessage('let go');
		expect(lock.acquire()).toBe(true);
		record(4); // the request thread's turn
		lock.release();
		await new Promise((resolve) => worker.once('message', resolve));
		expect([...steps.slice(1, 1 + Atomics.load(steps, 0))]).toEqual([1, 2, 4, 3]);
	} finally {
		await worker.terminate();
	}
});

it('lets the request thread write while another thread pauses the others', async () => {
	const { lock, signals, worker } = startPausing();
	try {
		// Had the request thread to wait for the pause, it would give up (false) after 2 s.
		expect(lock.acquire()).toBe(true);
		lock.release();
		Atomics.store(signals, 1, 1);
		await new Promise((resolve) => worker.once('message', resolve));
		expect(new Int32Array(lock.buffer)[2]).toBe(0);
	} finally {
		await worker.terminate();
	}
});

it('ends the pause of a thread that died pausing', async () => {
	const { lock, worker } = startPausing();
	const deadId = worker.threadId;
	await worker.terminate();
	const slots = new Int32Array(lock.buffer);
	expect(slots[2]).toBe(deadId + 1);
	lock.releaseFor(deadId);
	expect(slots[2]).toBe(0);
});

it('frees a lock whose holder died, and no one else’s', async () => {
	const lock = new WriteLock();
	const steps = new Int32Array(new SharedArrayBuffer(4 * 8));
	const worker = new Worker(holder, { workerData: { lock: lock.buffer, steps: steps.buffer } });
	while (Atomics.load(steps, 0) < 1) Atomics.wait(steps, 0, 0, 1000);
	const deadId = worker.threadId;
	await worker.terminate();
	lock.releaseFor(deadId + 1); // another thread's id: left alone
	expect(new Int32Array(lock.buffer)[0]).toBe(deadId + 1);
	lock.releaseFor(deadId);
	expect(lock.acquire()).toBe(true);
	lock.release();
});

it('when the outbox thread dies holding it, the server frees it for the thread it starts again and for requests', async () => {
	const dir = mkdtempSync(join(tmpdir(), 'traininglab-write-lock-'));
	const logs: string[] = [];
	const lock = new WriteLock();
	const thread = new DeliveryThread(
		pathToFileURL(join(ROOT, 'test', 'support', 'dies-holding-write-lock.ts')),
		{
			databasePath: join(dir, 'died-once'),
			options: {} as DispatcherOptions & { retryScheduleSeconds: number[] },
			checkpointsElsewhere: true,
			counted: false,
		},
		lock,
		{ info: (message) => logs.push(message), error: (message) => logs.push(message) },
	);
	try {
		// Answered by the thread started again, which took the lock and let it go.
		await thread.whenIdle();
		expect(logs.join('\n')).toMatch(/the webhook outbox thread stopped \(exit code 1\)/);
		expect(lock.acquire()).toBe(true);
		lock.release();
	} finally {
		await thread.stop();
		rmSync(dir, { recursive: true, force: true });
	}
});
