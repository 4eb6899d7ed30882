import type { Role } from '../schemas/common.ts';

/** Who is acting: the authenticated key's user, with the key's effective role. */
export interface Actor {
  orgId: string;
  userId: string;
  email: string;
  role: Role;
}
