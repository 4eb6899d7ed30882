import type { Database } from 'better-sqlite3';
import type { Lab } from '../schemas/labs.ts';

export type LabRow = Lab & { seq: number; org_id: string };
type NewLab = Omit<LabRow, 'seq'>;

export interface LabVersionRow {
	seq: number;
	id: string;
	lab_id: string;
	org_id: string;
	version: number;
	status: 'draft' | 'published';
	created_at: string;
	published_at: string | null;
}
type NewLabVersion = Omit<LabVersionRow, 'seq'>;

export class LabRepository {
	readonly #insert;
	readonly #find;
	readonly #findByName;
	readonly #page;

	constructor(db: Database) {
		this.#insert = db.prepare<NewLab>(
			'INSERT INTO labs (id, org_id, name, tier, created_at) VALUES (@id, @org_id, @name, @tier, @created_at)',
		);
		this.#find = db.prepare<[string, string], LabRow>(
			'SELECT * FROM labs WHERE org_id = ? AND id = ?',
		);
		this.#findByName = db.prepare<[string, string], LabRow>(
			'SELECT * FROM labs WHERE org_id = ? AND name = ?',
		);
		this.#page = db.prepare<[string, number, number], LabRow>(
			'SELECT * FROM labs WHERE org_id = ? AND seq > ? ORDER BY seq LIMIT ?',
		);
	}

	insert(lab: NewLab): void {
		this.#insert.run(lab);
	}

	find(orgId: string, labId: string): LabRow | undefined {
		return this.#find.get(orgId, labId);
	}

	findByName(orgId: string, name: string): LabRow | undefined {
		return this.#findByName.get(orgId, name);
	}

	page(orgId: string, afterSeq: number, limit: number): LabRow[] {
		return this.#page.all(orgId, afterSeq, limit);
	}
}

export class LabVersionRepository {
	readonly #insert;
	readonly #find;
	readonly #latestNumber;
	readonly #page;
	readonly #publish;

	constructor(db: Database) {
		this.#insert = db.prepare<NewLabVersion>(
			`INSERT INTO lab_versions (id, lab_id, org_id, version, status, created_at, published_at)
       VALUES (@id, @lab_id, @org_id, @version, @status, @created_at, @published_at)`,
		);
		this.#find = db.prepare<[string, string], LabVersionRow>(
			'SELECT * FROM lab_versions WHERE org_id = ? AND id = ?',
		);
		this.#latestNumber = db.prepare<[string], { latest: number | null }>(
			'SELECT max(version) AS latest FROM lab_versions WHERE lab_id = ?',
		);
		this.#page = db.prepare<[string, number, number], LabVersionRow>(
			'SELECT * FROM lab_versions WHERE lab_id = ? AND seq > ? ORDER BY seq LIMIT ?',
		);
		this.#publish = db.prepare<[string, string]>(
			`UPDATE lab_versions SET status = 'published', published_at = ? WHERE id = ?`,
		);
	}

	insert(version: NewLabVersion): void {
		this.#insert.run(version);
	}

	/** A version of any lab of the organization. */
	find(orgId: string, versionId: string): LabVersionRow | undefined {
		return this.#find.get(orgId, versionId);
	}

	latestNumber(labId: string): number {
		return this.#latestNumber.get(labId)?.latest ?? 0;
	}

	page(labId: string, afterSeq: number, limit: number): LabVersionRow[] {
		return this.#page.all(labId, afterSeq, limit);
	}

	publish(versionId: string, publishedAt: string): void {
		this.#publish.run(publishedAt, versionId);
	}
}
