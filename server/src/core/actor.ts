import type { Role } from '../schemas/common.ts';
import type { Principal } from '../schemas/identity.ts';

/** Who is acting: the authenticated key's user, with the key's effective role. */
export interface Actor {
	orgId: string;
	userId: string;
	email: string;
	role: Role;
}

/** An authenticated caller: the principal `GET /me` shows, plus the key that authenticated. */
export interface Caller extends Principal {
	keyId: string;
}

export function actorOf(caller: Caller): Actor {
	return {
		orgId: caller.org.id,
		userId: caller.user.id,
		email: caller.user.email,
		role: caller.role,
	};
}

/** The server itself, as the actor of what it does on its own (disabling an endpoint that answered 410). */
export function systemActor(orgId: string): Actor {
	return { orgId, userId: '', email: 'system', role: 'admin' };
}
