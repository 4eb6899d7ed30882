import type { Database } from 'better-sqlite3';

interface OrgRow {
	id: string;
	name: string;
	slug: string;
	created_at: string;
	closed_at: string | null;
}

export class OrgRepository {
	readonly #insert;
	readonly #findById;
	readonly #findBySlug;
	readonly #close;

	constructor(db: Database) {
		this.#insert = db.prepare<OrgRow>(
			'INSERT INTO orgs (id, name, slug, created_at, closed_at) VALUES (@id, @name, @slug, @created_at, @closed_at)',
		);
		this.#findById = db.prepare<[string], OrgRow>('SELECT * FROM orgs WHERE id = ?');
		this.#findBySlug = db.prepare<[string], OrgRow>('SELECT * FROM orgs WHERE slug = ?');
		this.#close = db.prepare<[string, string]>('UPDATE orgs SET closed_at = ? WHERE id = ?');
	}

	insert(row: OrgRow): void {
		this.#insert.run(row);
	}

	findById(id: string): OrgRow | undefined {
		return this.#findById.get(id);
	}

	findBySlug(slug: string): OrgRow | undefined {
		return this.#findBySlug.get(slug);
	}

	close(id: string, closedAt: string): void {
		this.#close.run(closedAt, id);
	}
}
