import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { checkpointOffThread } from '../../server/src/db/checkpoints.ts';
import { openDatabase } from '../../server/src/db/connection.ts';
import { eventually } from '../../tooling/eventually.ts';
import { createOrg, sessionInput } from '../support/fixtures.ts';
import { startTestServer } from '../support/test-server.ts';

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
		const checkpoints = checkpointOffThread(db, pathToFileURL(join(dir, 'no-such-worker.mjs')), {
			info: () => {},
			error: (message) => logged.push(message),
		});
		try {
			await eventually(() => logged.length > 0, 'the failure logged');
			expect(logged).toEqual(['WAL checkpoints are back on the main thread: their worker failed']);
			expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
		} finally {
			await checkpoints.stop();
			db.close();
		}
	});
});
