import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { openDatabase } from '../../server/src/db/connection.ts';
import { MIGRATIONS, migrate } from '../../server/src/db/migrations.ts';
import { ROOT } from '../../tooling/root.ts';

// The schema every database must end up with, checked in: a change to an applied migration, or a
// migration that forgets what an upgrade needs, shows up as a difference from this file.
// After adding a migration on purpose: UPDATE_SCHEMA_SNAPSHOT=1 npx jest test/server/migrations.test.ts
const SNAPSHOT = join(ROOT, 'test', 'server', 'schema.snapshot.sql');

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'traininglab-migrations-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function schemaOf(path: string): string {
	const db = new BetterSqlite3(path, { readonly: true });
	const rows = db
		.prepare(
			"SELECT sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' AND sql IS NOT NULL ORDER BY type, name",
		)
		.pluck()
		.all() as string[];
	const version = db.pragma('user_version', { simple: true });
	db.close();
	// Migrations indent their SQL; the layout is not the schema.
	const normalised = rows.map((sql) =>
		sql
			.replace(/--[^\n]*/g, '')
			.replace(/\s+/g, ' ')
			.replace(/\( /g, '(')
			.replace(/ \)/g, ')')
			.trim(),
	);
	return `-- user_version ${version}\n${normalised.join(';\n')};\n`;
}

describe('migrations', () => {
	it('are numbered 1, 2, 3… without gaps', () => {
		expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
	});

	it('create exactly the checked-in schema on a new database', () => {
		const fresh = join(dir, 'fresh.sqlite');
		openDatabase(fresh).close();
		if (process.env.UPDATE_SCHEMA_SNAPSHOT) writeFileSync(SNAPSHOT, schemaOf(fresh));
		expect(schemaOf(fresh)).toBe(readFileSync(SNAPSHOT, 'utf8'));
	});

	it('upgrade a database of every earlier version to exactly that schema, keeping its data', () => {
		for (let version = 1; version < MIGRATIONS.length; version++) {
			const path = join(dir, `v${version}.sqlite`);
			const old = new BetterSqlite3(path);
			migrate(old, MIGRATIONS.slice(0, version));
			old
				.prepare(
					"INSERT INTO orgs (id, name, slug, created_at) VALUES ('o1', 'Old Org', 'old-org', '2026-01-01T00:00:00.000Z')",
				)
				.run();
			old.close();

			const db = openDatabase(path);
			expect(db.prepare('SELECT name FROM orgs').all()).toEqual([{ name: 'Old Org' }]);
			expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
			expect(db.pragma('foreign_key_check')).toEqual([]);
			db.close();
			expect({ from: version, schema: schemaOf(path) }).toEqual({
				from: version,
				schema: readFileSync(SNAPSHOT, 'utf8'),
			});
		}
	});

	it('make the database itself refuse values outside the API bounds', () => {
		const db = openDatabase(join(dir, 'bounds.sqlite'));
		db.prepare(
			"INSERT INTO orgs (id, name, slug, created_at) VALUES ('o1', 'Org', 'org', '2026-01-01T00:00:00.000Z')",
		).run();
		expect(() =>
			db
				.prepare(
					"INSERT INTO orgs (id, name, slug, created_at) VALUES ('o2', ?, 'org-2', '2026-01-01T00:00:00.000Z')",
				)
				.run('x'.repeat(201)),
		).toThrow('bounds: orgs');
		db.prepare(
			"INSERT INTO labs (id, org_id, name, tier, created_at) VALUES ('l1', 'o1', 'Lab', 'vm', '2026-01-01T00:00:00.000Z')",
		).run();
		db.prepare(
			"INSERT INTO lab_versions (id, lab_id, org_id, version, status, created_at) VALUES ('v1', 'l1', 'o1', 1, 'published', '2026-01-01T00:00:00.000Z')",
		).run();
		const insertSession = db.prepare(
			"INSERT INTO sessions (id, org_id, lab_version_id, title, capacity, state, join_code, created_at) VALUES (?, 'o1', 'v1', 'S', ?, 'scheduled', ?, '2026-01-01T00:00:00.000Z')",
		);
		insertSession.run('s1', 1000, 'AAAAAAAA');
		for (const [capacity, code] of [
			[0, 'BBBBBBBB'],
			[1001, 'CCCCCCCC'],
			[2.5, 'DDDDDDDD'],
		] as const) {
			expect(() => insertSession.run(`s-${code}`, capacity, code)).toThrow('bounds: sessions');
		}
		expect(() => db.prepare("UPDATE sessions SET title = '' WHERE id = 's1'").run()).toThrow(
			'bounds: sessions',
		);
		db.close();
	});
});
