import type { NextFunction, Request, Response } from 'express';
import type { Caller } from '../core/actor.ts';
import type { ApiKeyService } from '../services/api-keys.ts';

/** Who sent the request: an authenticated caller, or why there is none. */
export type Identity = { caller: Caller } | { caller: null; problem: 'missing' | 'invalid' };

const identities = new WeakMap<Request, Identity>();

export function identityOf(req: Request): Identity {
	return identities.get(req) ?? { caller: null, problem: 'missing' };
}

/** The token of an `Authorization: Bearer <token>` header, or undefined for any other header. */
export function bearerToken(header: string | undefined): string | undefined {
	return header === undefined ? undefined : /^Bearer +([^\s]+) *$/i.exec(header)?.[1];
}

/**
 * Resolves the Bearer key of every API request without rejecting it yet: the rate limiter needs to
 * know who is calling, and each route decides whether it needs a caller.
 */
export function identifyCaller(apiKeys: ApiKeyService) {
	return (req: Request, _res: Response, next: NextFunction): void => {
		const header = req.headers.authorization;
		let identity: Identity;
		if (header === undefined) {
			identity = { caller: null, problem: 'missing' };
		} else {
			const token = bearerToken(header);
			const caller = token ? apiKeys.authenticate(token) : null;
			identity = caller ? { caller } : { caller: null, problem: 'invalid' };
		}
		identities.set(req, identity);
		next();
	};
}
