// Stands in for the outbox's thread (server/src/outbox/worker.ts), speaking its messages: the first
// time it starts it takes the write lock and dies holding it; started again, it takes the lock as
// the outbox does, lets go, and answers. `databasePath` names the file that tells the two apart.
import { existsSync, writeFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { WriteLock } from '../../server/src/db/write-lock.ts';

const { writeLock, databasePath } = workerData as {
	writeLock: SharedArrayBuffer;
	databasePath: string;
};
const lock = new WriteLock(writeLock, false);
lock.acquire();
if (!existsSync(databasePath)) {
	writeFileSync(databasePath, 'died once, holding the write lock');
	throw new Error('dies holding the write lock');
}
lock.release();
parentPort!.on('message', (message: { type: string; id?: number }) => {
	if (message.type === 'idle') parentPort!.postMessage({ type: 'idle', id: message.id });
	if (message.type === 'stop') {
		parentPort!.postMessage({ type: 'stopped' });
		parentPort!.close();
	}
});
