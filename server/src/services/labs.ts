import { ApiError, notFound } from '../core/errors.ts';
import type { LabRow, LabVersionRow } from '../repositories/labs.ts';
import { pageOf, type Page, type PageRequest } from '../core/paging.ts';
import type { Lab, LabCreate, LabVersion } from '../schemas/labs.ts';
import type { Actor } from '../core/actor.ts';
import { DomainService } from './domain-service.ts';

export class LabService extends DomainService {
	list(orgId: string, page: PageRequest): Page<Lab> {
		return pageOf(
			page,
			'ascending',
			(after, limit) => this.repos.labs.page(orgId, after, limit),
			toLab,
		);
	}

	create(actor: Actor, input: LabCreate): Lab {
		return this.transaction(() => {
			if (this.repos.labs.findByName(actor.orgId, input.name)) {
				throw new ApiError('name_taken', `A lab named "${input.name}" already exists.`);
			}
			const lab = {
				id: this.newId(),
				name: input.name,
				tier: input.tier,
				created_at: this.nowIso(),
			};
			this.repos.labs.insert({ ...lab, org_id: actor.orgId });
			this.events.record(actor, 'lab.created', { lab_id: lab.id, name: lab.name, tier: lab.tier });
			return lab;
		});
	}

	listVersions(orgId: string, labId: string, page: PageRequest): Page<LabVersion> {
		const lab = this.#findLab(orgId, labId);
		return pageOf(
			page,
			'ascending',
			(after, limit) => this.repos.labVersions.page(lab.id, after, limit),
			toLabVersion,
		);
	}

	/** A new draft numbered one above the lab's latest version. */
	createVersion(actor: Actor, labId: string): LabVersion {
		return this.transaction(() => {
			const lab = this.#findLab(actor.orgId, labId);
			const row = {
				id: this.newId(),
				lab_id: lab.id,
				org_id: actor.orgId,
				version: this.repos.labVersions.latestNumber(lab.id) + 1,
				status: 'draft' as const,
				created_at: this.nowIso(),
				published_at: null,
			};
			this.repos.labVersions.insert(row);
			this.events.record(actor, 'lab_version.created', {
				lab_id: lab.id,
				version_id: row.id,
				version: row.version,
			});
			return toLabVersion({ ...row, seq: 0 });
		});
	}

	publish(actor: Actor, labId: string, versionId: string): LabVersion {
		return this.transaction(() => {
			const version = this.#findVersion(actor.orgId, labId, versionId);
			if (version.status === 'published')
				throw new ApiError('invalid_state', `Version ${version.version} is already published.`);
			const publishedAt = this.nowIso();
			this.repos.labVersions.publish(version.id, publishedAt);
			this.events.record(actor, 'lab_version.published', {
				lab_id: labId,
				version_id: version.id,
				version: version.version,
			});
			return toLabVersion({ ...version, status: 'published', published_at: publishedAt });
		});
	}

	#findLab(orgId: string, labId: string): LabRow {
		const lab = this.repos.labs.find(orgId, labId);
		if (!lab) throw notFound('Lab');
		return lab;
	}

	#findVersion(orgId: string, labId: string, versionId: string): LabVersionRow {
		const lab = this.#findLab(orgId, labId);
		const version = this.repos.labVersions.find(orgId, versionId);
		if (!version || version.lab_id !== lab.id) throw notFound('Lab version');
		return version;
	}
}

function toLab(row: LabRow): Lab {
	return { id: row.id, name: row.name, tier: row.tier, created_at: row.created_at };
}

function toLabVersion(row: LabVersionRow): LabVersion {
	return {
		id: row.id,
		lab_id: row.lab_id,
		version: row.version,
		status: row.status,
		created_at: row.created_at,
		...(row.published_at ? { published_at: row.published_at } : {}),
	};
}
