import type { Database } from 'better-sqlite3';

/** Secrets of the server itself (not of any organization), created once per database. */
export class ServerKeyRepository {
	readonly #insert;
	readonly #find;

	constructor(db: Database) {
		this.#insert = db.prepare<[string, Buffer]>(
			'INSERT OR IGNORE INTO server_keys (name, key) VALUES (?, ?)',
		);
		this.#find = db.prepare<[string], { key: Buffer }>(
			'SELECT key FROM server_keys WHERE name = ?',
		);
	}

	/** The key named `name`; `create` makes it the first time (whoever inserts first wins). */
	getOrCreate(name: string, create: () => Buffer): Buffer {
		this.#insert.run(name, create());
		return this.#find.get(name)!.key;
	}
}
