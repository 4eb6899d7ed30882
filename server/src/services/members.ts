import { ApiError, notFound } from '../core/errors.ts';
import { pageOf, type Page, type PageRequest } from '../core/paging.ts';
import type { UserRow } from '../repositories/users.ts';
import type { Role } from '../schemas/common.ts';
import type { Member, MemberCreate } from '../schemas/members.ts';
import type { Actor } from '../core/actor.ts';
import { DomainService } from './domain-service.ts';

export class MemberService extends DomainService {
	list(orgId: string, page: PageRequest): Page<Member> {
		return pageOf(
			page,
			'ascending',
			(after, limit) => this.repos.users.pageActive(orgId, after, limit),
			toMember,
		);
	}

	add(actor: Actor, input: MemberCreate): Member {
		return this.transaction(() => {
			if (this.repos.users.findActiveByEmail(actor.orgId, input.email)) {
				throw new ApiError(
					'already_member',
					`${input.email} is already a member of this organization.`,
				);
			}
			const member = this.insertMember(actor.orgId, input);
			this.events.record(actor, 'member.added', { ...member });
			return member;
		});
	}

	/** Inserts a member without an event: for callers that record their own (organization bootstrap). */
	insertMember(orgId: string, input: MemberCreate): Member {
		const user = { id: this.newId(), org_id: orgId, ...input, created_at: this.nowIso() };
		this.repos.users.insert(user);
		return { user_id: user.id, email: user.email, name: user.name, role: user.role };
	}

	changeRole(actor: Actor, userId: string, role: Role): Member {
		return this.transaction(() => {
			const user = this.#findMember(actor.orgId, userId);
			if (user.role === role) return toMember(user);
			if (user.role === 'admin') this.#assertNotLastAdmin(actor.orgId, 'demote');
			this.repos.users.updateRole(user.id, role);
			this.events.record(actor, 'member.role_changed', {
				user_id: user.id,
				from: user.role,
				to: role,
			});
			return { ...toMember(user), role };
		});
	}

	/** Removes the member and revokes every API key of theirs in the same transaction. */
	remove(actor: Actor, userId: string): void {
		this.transaction(() => {
			const user = this.#findMember(actor.orgId, userId);
			if (user.role === 'admin') this.#assertNotLastAdmin(actor.orgId, 'remove');
			const now = this.nowIso();
			this.repos.users.markRemoved(user.id, now);
			this.repos.apiKeys.revokeAllOfUser(user.id, now);
			this.events.record(actor, 'member.removed', {
				user_id: user.id,
				email: user.email,
				role: user.role,
			});
		});
	}

	#findMember(orgId: string, userId: string): UserRow {
		const user = this.repos.users.findActive(orgId, userId);
		if (!user) throw notFound('Member');
		return user;
	}

	#assertNotLastAdmin(orgId: string, action: 'demote' | 'remove'): void {
		if (this.repos.users.countAdmins(orgId) <= 1) {
			throw new ApiError(
				'last_admin',
				`Cannot ${action} the last admin of the organization; promote another member first.`,
			);
		}
	}
}

function toMember(row: UserRow): Member {
	return { user_id: row.id, email: row.email, name: row.name, role: row.role };
}
