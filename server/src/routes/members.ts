import { defineListRoute, defineRoute } from '../http/route.ts';
import { listQuery } from '../schemas/common.ts';
import { Member, MemberCreate, MemberParams, MemberRoleUpdate } from '../schemas/members.ts';
import { OrgParams } from '../schemas/orgs.ts';

export const memberRoutes = [
	defineListRoute({
		path: '/orgs/{orgId}/members',
		operationId: 'listMembers',
		tag: 'Members',
		summary: 'List members',
		description: 'Members in the order they joined.',
		access: 'member',
		params: OrgParams,
		query: listQuery(100),
		success: { description: 'A page of members.', schema: Member },
		handle: ({ services, caller, page }) => services.members.list(caller.org.id, page),
	}),
	defineRoute({
		method: 'post',
		path: '/orgs/{orgId}/members',
		operationId: 'addMember',
		tag: 'Members',
		summary: 'Add a member',
		description: 'Emits `member.added`.',
		access: 'admin',
		params: OrgParams,
		body: MemberCreate,
		success: { status: 201, description: 'The new member.', schema: Member },
		errors: ['already_member'],
		handle: ({ services, actor, body }) => services.members.add(actor, body),
	}),
	defineRoute({
		method: 'patch',
		path: '/orgs/{orgId}/members/{userId}',
		operationId: 'updateMemberRole',
		tag: 'Members',
		summary: "Change a member's role",
		description:
			'Emits `member.role_changed` when the role changes; setting the same role changes nothing.',
		access: 'admin',
		params: MemberParams,
		body: MemberRoleUpdate,
		success: { status: 200, description: 'The member with the new role.', schema: Member },
		errors: ['last_admin'],
		handle: ({ services, actor, params, body }) =>
			services.members.changeRole(actor, params.userId, body.role),
	}),
	defineRoute({
		method: 'delete',
		path: '/orgs/{orgId}/members/{userId}',
		operationId: 'removeMember',
		tag: 'Members',
		summary: 'Remove a member',
		description: 'Revokes all API keys of the member at once and emits `member.removed`.',
		access: 'admin',
		params: MemberParams,
		success: { status: 204, description: 'Removed.' },
		errors: ['last_admin'],
		handle: ({ services, actor, params }) => services.members.remove(actor, params.userId),
	}),
];
