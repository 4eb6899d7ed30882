import { ApiError } from '../core/errors.ts';
import { slugify } from '../lib/slug.ts';
import type { ApiKeyCreated } from '../schemas/api-keys.ts';
import type { Member } from '../schemas/members.ts';
import type { ClosedOrg } from '../schemas/orgs.ts';
import type { Actor } from '../core/actor.ts';
import type { ApiKeyService } from './api-keys.ts';
import type { MemberService } from './members.ts';
import { DomainService, type ServiceDeps } from './domain-service.ts';

interface NewOrganization {
	name: string;
	admin: { email: string; name: string };
}

interface CreatedOrganization {
	org: { id: string; name: string; slug: string };
	admin: Member;
	apiKey: ApiKeyCreated;
	/** The first admin, acting: for further setup in the same transaction. */
	actor: Actor;
}

export class OrgService extends DomainService {
	readonly #members: MemberService;
	readonly #apiKeys: ApiKeyService;

	constructor(deps: ServiceDeps, members: MemberService, apiKeys: ApiKeyService) {
		super(deps);
		this.#members = members;
		this.#apiKeys = apiKeys;
	}

	/** An organization with its first admin and that admin's API key, all or nothing. */
	create(input: NewOrganization): CreatedOrganization {
		const slug = slugify(input.name);
		if (slug === '')
			throw new ApiError(
				'validation_failed',
				'The organization name must contain a letter or digit.',
			);
		return this.transaction(() => {
			if (this.repos.orgs.findBySlug(slug)) {
				throw new ApiError('name_taken', `The organization slug "${slug}" is already taken.`);
			}
			const org = { id: this.newId(), name: input.name, slug };
			this.repos.orgs.insert({ ...org, created_at: this.nowIso(), closed_at: null });
			const admin = this.#members.insertMember(org.id, { ...input.admin, role: 'admin' });
			const actor: Actor = {
				orgId: org.id,
				userId: admin.user_id,
				email: admin.email,
				role: 'admin',
			};
			this.events.record(actor, 'member.added', { ...admin });
			const apiKey = this.#apiKeys.create(actor, { name: 'Bootstrap admin key', role: 'admin' });
			return { org, admin, apiKey, actor };
		});
	}

	/** Closes the organization: from the commit on, every key of it is refused. */
	close(actor: Actor): ClosedOrg {
		return this.transaction(() => {
			const org = this.repos.orgs.findById(actor.orgId);
			if (!org || org.closed_at)
				throw new ApiError('invalid_state', 'The organization is already closed.');
			const closed = { id: org.id, name: org.name, slug: org.slug, closed_at: this.nowIso() };
			this.repos.orgs.close(org.id, closed.closed_at);
			this.events.record(actor, 'org.closed', {
				org_id: closed.id,
				name: closed.name,
				slug: closed.slug,
				closed_at: closed.closed_at,
			});
			return closed;
		});
	}
}
