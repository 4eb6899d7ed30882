import type { Database } from 'better-sqlite3';

/** A statement as `Database.prepare<P, R>` types it (named parameters are one object). */
type Prepared<P extends unknown[] | object, R> = ReturnType<typeof prepareTyped<P, R>>;

function prepareTyped<P extends unknown[] | object, R>(db: Database, source: string) {
	return db.prepare<P, R>(source);
}

/**
 * A connection's prepared statements, each prepared once, when first run: a repository writes its
 * SQL in the method that runs it, rather than in a constructor far from it.
 */
export class Statements {
	readonly #db: Database;
	readonly #prepared = new Map<string, unknown>();

	constructor(db: Database) {
		this.#db = db;
	}

	/** The statement of `source`. */
	of<P extends unknown[] | object = unknown[], R = unknown>(source: string): Prepared<P, R> {
		return this.#cached(source, () => prepareTyped<P, R>(this.#db, source)) as Prepared<P, R>;
	}

	/** The statement of `source`, answering the first column of each row only. */
	plucked<P extends unknown[] | object = unknown[], R = unknown>(source: string): Prepared<P, R> {
		return this.#cached(`pluck\u0000${source}`, () =>
			prepareTyped<P, R>(this.#db, source).pluck(),
		) as Prepared<P, R>;
	}

	#cached(key: string, prepare: () => unknown): unknown {
		let statement = this.#prepared.get(key);
		if (statement === undefined) {
			statement = prepare();
			this.#prepared.set(key, statement);
		}
		return statement;
	}
}
