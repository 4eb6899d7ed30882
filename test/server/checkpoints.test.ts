import { randomBytes } from 'node:crypto';
import {
	closeSync,
	copyFileSync,
	existsSync,
	mkdtempSync,
	openSync,
	readSync,
	rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { checkpointOffThread } from '../../server/src/db/checkpoints.ts';
import { openDatabase } from '../../server/src/db/connection.ts';
import { inTransaction, takeTurnsWriting } from '../../server/src/db/transaction.ts';
import { WriteLock } from '../../server/src/db/write-lock.ts';
import { eventually } from '../../tooling/eventually.ts';
import { createOrg, sessionInput } from '../support/fixtures.ts';
import { startTestServer, workers } from '../support/test-server.ts';

let dir: string;
beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), 'traininglab-checkpoints-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The titles of the sessions in the database file alone, without its WAL: what checkpoints copied. */
function sessionTitlesInDatabaseFile(databasePath: string): string[] {
	const copy = join(dir, `copy-${Date.now()}-${Math.random()}.sqlite`);
	copyFileSync(databasePath, copy);
	const db = new Database(copy);
	try {
		return db
			.prepare('SELECT title FROM sessions')
			.all()
			.map((row) => (row as { title: string }).title);
	} finally {
		db.close();
	}
}

/** How many times the WAL was written from its start again: its header's checkpoint sequence. */
function walRestarts(databasePath: string): number {
	const header = Buffer.alloc(16);
	const fd = openSync(`${databasePath}-wal`, 'r');
	try {
		readSync(fd, header, 0, 16, 0);
	} finally {
		closeSync(fd);
	}
	return header.readUInt32BE(12);
}

describe('WAL checkpoints', () => {
	it('run on their worker thread, never in the commits of the server’s requests', async () => {
		const server = await startTestServer();
		try {
			expect(server.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
			const org = await createOrg(server);
			const created = await org.trainer.post('/sessions', sessionInput(org, { title: 'Copied' }));
			expect(created.status).toBe(201);

			// A commit with autocheckpoint off leaves its pages in the WAL; only the worker's checkpoint
			// brings the session into the database file.
			await eventually(
				() => sessionTitlesInDatabaseFile(server.databasePath).includes('Copied'),
				'the session in the database file',
				// Not there yet (the schema itself still in the WAL), or a copy torn by a checkpoint
				// writing as it was taken: look again.
				{
					retryErrors: (error) => /no such table|malformed|not a database/i.test(error.message),
				},
			);
		} finally {
			await server.close();
		}
		// The worker's connection closed first, so the server's was the last: it removed the WAL.
		expect(existsSync(`${server.databasePath}-wal`)).toBe(false);
		rmSync(server.dir, { recursive: true, force: true });
	}, 30_000);

	it('come back to SQLite, on the main thread, when their worker fails', async () => {
		const db = openDatabase(join(dir, 'failing-worker.sqlite'));
		const logged: string[] = [];
		const checkpoints = checkpointOffThread(
			db,
			pathToFileURL(join(dir, 'no-such-worker.mjs')),
			{ info: () => {}, error: (message) => logged.push(message) },
			{ writeLock: new WriteLock() },
		);
		try {
			await eventually(() => logged.length > 0, 'the failure logged');
			expect(logged).toEqual(['WAL checkpoints are back on the main thread: their worker failed']);
			expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
		} finally {
			await checkpoints.stop();
			db.close();
		}
	});

	it('write the WAL from its start again while the outbox’s commits never stop', async () => {
		const db = openDatabase(join(dir, 'sustained.sqlite'));
		db.exec('CREATE TABLE filler (body BLOB)');
		const insert = db.prepare('INSERT INTO filler (body) VALUES (?)');
		// Committing as the outbox thread does: the one a checkpoint can pause.
		const writeLock = new WriteLock(undefined, false);
		takeTurnsWriting(db, writeLock);
		const checkpoints = checkpointOffThread(
			db,
			workers.checkpoints,
			{ info: () => {}, error: () => {} },
			{ writeLock, intervalMs: 10, restartFromFrames: 64 },
		);
		try {
			const RESTARTS = 30;
			const before = walRestarts(db.name);
			// A commit of a page each turn of the event loop, with no pause between them (a timer, as
			// in eventually(), would leave one): once the WAL holds a few hundred pages no checkpoint
			// round finds it still (without that round, 2 s of this wrote 85-110 MB of WAL and
			// started it again at most twice), so only the round that pauses them restarts it.
			const deadline = Date.now() + 10_000;
			while (walRestarts(db.name) < before + RESTARTS) {
				if (Date.now() > deadline)
					throw new Error(
						`the WAL started again ${walRestarts(db.name) - before} times in 10 s, not ${RESTARTS}`,
					);
				inTransaction(db, () => insert.run(randomBytes(1024)));
				await new Promise(setImmediate);
			}
		} finally {
			await checkpoints.stop();
			db.close();
		}
	});
});
