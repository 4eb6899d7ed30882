// A thread other than the test's that pauses the write lock's other writers, as the checkpoint
// thread does: it sets slot 0 of `signals` (shared memory) once paused, and ends the pause once
// the test sets slot 1.
import { parentPort, workerData } from 'node:worker_threads';
import { WriteLock } from '../../server/src/db/write-lock.ts';

const { lock, signals } = workerData as { lock: SharedArrayBuffer; signals: SharedArrayBuffer };
const slots = new Int32Array(signals);
new WriteLock(lock, false).pausingOthers(() => {
	Atomics.store(slots, 0, 1);
	Atomics.notify(slots, 0);
	while (Atomics.load(slots, 1) === 0) Atomics.wait(slots, 1, 0, 10);
});
parentPort!.postMessage('resumed');
