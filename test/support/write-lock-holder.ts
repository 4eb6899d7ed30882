// A thread other than the test's that takes the write lock as the outbox thread does (it yields to
// the request thread): holds it until told and the request thread waits, lets go, and at once asks
// for it again. Steps are written to `steps` (shared memory) in the order they happen.
import { parentPort, workerData } from 'node:worker_threads';
import { WriteLock } from '../../server/src/db/write-lock.ts';

const { lock, steps } = workerData as { lock: SharedArrayBuffer; steps: SharedArrayBuffer };
const writeLock = new WriteLock(lock, false);
const log = new Int32Array(steps);
/** Slot 0: how many steps; then each step: 1 = the holder took it, 2 = it lets go, 3 = took it again. */
const record = (step: number) => {
	const at = Atomics.add(log, 0, 1) + 1;
	Atomics.store(log, at, step);
	Atomics.notify(log, 0);
};

writeLock.acquire();
record(1);
parentPort!.once('message', () => {
	// Once the request thread waits for it (slot 1 of the lock), it lets go and asks again at once.
	const slots = new Int32Array(lock);
	while (Atomics.load(slots, 1) !== 1) Atomics.wait(slots, 1, 0, 10);
	record(2);
	writeLock.release();
	writeLock.acquire();
	record(3);
	writeLock.release();
	parentPort!.postMessage('done');
});
