import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { openDatabase } from '../../server/src/db/connection.ts';
import { MIGRATIONS, migrate } from '../../server/src/db/migrations.ts';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'traininglab-migrations-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('migrations', () => {
  it('are numbered 1, 2, 3… without gaps', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });

  it('upgrade a database of every earlier version in place, keeping its data', () => {
    for (let version = 1; version < MIGRATIONS.length; version++) {
      const path = join(dir, `v${version}.sqlite`);
      const old = new BetterSqlite3(path);
      migrate(old, MIGRATIONS.slice(0, version));
      old.prepare("INSERT INTO orgs (id, name, slug, created_at) VALUES ('o1', 'Old Org', 'old-org', '2026-01-01T00:00:00.000Z')").run();
      old.close();

      const db = openDatabase(path);
      expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      expect(db.prepare('SELECT name FROM orgs').all()).toEqual([{ name: 'Old Org' }]);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.pragma('foreign_key_check')).toEqual([]);
      db.close();
    }
  });

  it('create the same schema from scratch as by upgrading', () => {
    const schema = (path: string) => {
      const db = new BetterSqlite3(path);
      const rows = db.prepare("SELECT type, name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY name").all();
      db.close();
      return rows;
    };
    openDatabase(join(dir, 'fresh.sqlite')).close();
    const stepwise = new BetterSqlite3(join(dir, 'stepwise.sqlite'));
    for (const migration of MIGRATIONS) migrate(stepwise, MIGRATIONS.slice(0, migration.version));
    stepwise.close();
    expect(schema(join(dir, 'stepwise.sqlite'))).toEqual(schema(join(dir, 'fresh.sqlite')));
  });
});
