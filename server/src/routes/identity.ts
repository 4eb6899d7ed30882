import { defineRoute } from '../http/route.ts';
import { Principal } from '../schemas/identity.ts';

export const identityRoutes = [
	defineRoute({
		method: 'get',
		path: '/me',
		operationId: 'getMe',
		tag: 'Identity',
		summary: "The calling key's user, organization and effective role",
		access: 'member',
		success: { status: 200, description: 'The principal.', schema: Principal },
		handle: ({ caller }) => ({ user: caller.user, org: caller.org, role: caller.role }),
	}),
];
