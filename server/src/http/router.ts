import type { Request, Response, Router } from 'express';
import type { CursorSeal } from '../core/cursor-seal.ts';
import type { Page, PageRequest } from '../core/paging.ts';
import { actorOf, type Caller } from '../core/actor.ts';
import type { Services } from '../services/index.ts';
import { identityOf } from './caller.ts';
import { ApiError, notFound } from '../core/errors.ts';
import type { StoredResponse } from '../services/idempotency.ts';
import { readJsonBody, refuseBody } from './json-body.ts';
import { BOUNDS } from '../schemas/bounds.ts';
import { assertScopable } from '../services/resource-scope.ts';
import type { AnyRoute, RouteContext } from './route.ts';
import { parseInput } from './validate.ts';
import { sendJson } from './json-answer.ts';

interface RouterDeps {
	services: Services;
	cursors: CursorSeal;
	/** Base of absolute URLs, e.g. `https://labs.example.com/api/v1`: never taken from the request. */
	apiBaseUrl: () => string;
	/** Where the router is mounted (`/api/v1`): the start of each route's template in /metrics. */
	apiPrefix: string;
}

type Context = RouteContext<never, never, never>;

/** The route template (`/api/v1/orgs/{orgId}/members`) of the route that took the request, for metrics and traces. */
export function notedRoute(res: Response): string | undefined {
	return res.locals.routeTemplate as string | undefined;
}

export function pathParamNames(path: string): string[] {
	return [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
}

/** Registers every route of the table on an Express router. */
export function mountRoutes(router: Router, routes: readonly AnyRoute[], deps: RouterDeps): void {
	for (const route of routes) {
		assertScopable(pathParamNames(route.path), `${route.method.toUpperCase()} ${route.path}`);
		const expressPath = route.path.replace(/\{(\w+)\}/g, ':$1');
		const template = `${deps.apiPrefix}${route.path}`;
		router[route.method](expressPath, async (req: Request, res: Response) => {
			res.locals.routeTemplate = template;
			const { outcome, ctx } = await handle(route, req, res, deps);
			send(res, route, outcome, ctx, deps);
		});
	}
}

/** The checks in the order a client should meet them: who, which, may they, what, then do it. */
async function handle(
	route: AnyRoute,
	req: Request,
	res: Response,
	deps: RouterDeps,
): Promise<{ outcome: StoredResponse; ctx: Context }> {
	const caller = authenticated(req);
	const params = route.params ? parseInput(route.params, req.params, 'params') : undefined;
	if (params?.orgId !== undefined && params.orgId !== caller.org.id) throw notFound('Organization');
	if (route.access === 'admin' && caller.role !== 'admin') {
		if (params && !deps.services.scope.allExistInOrg(caller.org.id, params))
			throw notFound('Resource');
		throw new ApiError(
			'forbidden',
			`This operation needs an admin key; this key acts as ${caller.role}.`,
		);
	}
	const query = route.query ? parseInput(route.query, req.query, 'query') : undefined;
	const rawBody = route.body ? await readJsonBody(req, res) : refuseBody(req);
	if (route.body && rawBody === undefined && !route.bodyOptional) {
		throw new ApiError(
			'validation_failed',
			'A JSON request body is required (Content-Type: application/json).',
		);
	}
	const body = route.body ? parseInput(route.body, rawBody ?? {}, 'body') : undefined;
	const ctx: Context = {
		caller,
		actor: actorOf(caller),
		services: deps.services,
		params: params as never,
		query: query as never,
		body: body as never,
		page: pageRequest(route, caller, params ?? {}, query, deps.cursors),
	};

	const key = idempotencyKey(req, route);
	if (key === undefined) {
		await route.precheck?.(ctx);
		return {
			outcome: { status: route.success.status, body: route.handle(ctx), replayed: false },
			ctx,
		};
	}
	const request = {
		orgId: caller.org.id,
		route: `${route.method.toUpperCase()} ${concretePath(route.path, params ?? {})}`,
		key,
		// The validated body: unknown fields are ignored by the API, so they do not make a request different.
		body,
		secretFields: route.secretFields ?? [],
	};
	const earlier = deps.services.idempotency.replay(request);
	if (earlier) return { outcome: earlier, ctx };
	await route.precheck?.(ctx);
	return {
		outcome: deps.services.idempotency.run(request, route.success.status, () => route.handle(ctx)),
		ctx,
	};
}

function authenticated(req: Request): Caller {
	const identity = identityOf(req);
	if (identity.caller) return identity.caller;
	throw new ApiError(
		'unauthorized',
		identity.problem === 'missing'
			? 'Missing API key: send the header "Authorization: Bearer <API key>".'
			: 'The API key is invalid or revoked.',
	);
}

function idempotencyKey(req: Request, route: AnyRoute): string | undefined {
	const key = req.headers['idempotency-key'];
	if (route.method !== 'post' || key === undefined) return undefined;
	const { min, max } = BOUNDS.idempotencyKey;
	if (typeof key !== 'string' || key.length < min || key.length > max) {
		throw new ApiError('validation_failed', `Idempotency-Key must be ${min}–${max} characters.`, [
			{ path: 'Idempotency-Key', message: `must be ${min}–${max} characters` },
		]);
	}
	return key;
}

function concretePath(path: string, params: Record<string, string>): string {
	return path.replace(/\{(\w+)\}/g, (_whole, name: string) => params[name]);
}

/** A list is one scope: a cursor opens only on the list, and for the organization, that sealed it. */
function listScope(route: AnyRoute, caller: Caller, params: Record<string, string>): string {
	return `${caller.org.id} ${concretePath(route.path, params)}`;
}

function pageRequest(
	route: AnyRoute,
	caller: Caller,
	params: Record<string, string>,
	query: { limit?: number; cursor?: string } | undefined,
	cursors: CursorSeal,
): PageRequest {
	const limit = query?.limit ?? 0;
	if (!route.success.list || query?.cursor === undefined) return { limit };
	const after = cursors.open(query.cursor, listScope(route, caller, params));
	if (after === null) {
		const message = 'Invalid cursor; use the URL of the `Link: rel="next"` header.';
		throw new ApiError('validation_failed', `Query parameter "cursor" is invalid: ${message}`, [
			{ path: 'cursor', message },
		]);
	}
	return { limit, after };
}

function send(
	res: Response,
	route: AnyRoute,
	outcome: StoredResponse,
	ctx: Context,
	deps: RouterDeps,
): void {
	res.setHeader('Cache-Control', 'no-store');
	if (outcome.replayed) res.setHeader('Idempotent-Replayed', 'true');
	if (outcome.status === 204) {
		res.status(204).end();
		return;
	}
	if (route.success.list) {
		const page = outcome.body as Page<unknown>;
		if (page.nextAfter !== null)
			res.setHeader('Link', `<${nextPageUrl(route, ctx, page.nextAfter, deps)}>; rel="next"`);
		sendJson(res, outcome.status, page.items);
		return;
	}
	sendJson(res, outcome.status, outcome.body);
}

/** Built from the configured public URL and the validated request, never from `Host` or the raw target. */
function nextPageUrl(route: AnyRoute, ctx: Context, after: number, deps: RouterDeps): string {
	const params: Record<string, string> = ctx.params ?? {};
	const url = new URL(`${deps.apiBaseUrl()}${concretePath(route.path, params)}`);
	const {
		limit: _limit,
		cursor: _cursor,
		...filters
	} = (ctx.query ?? {}) as Record<string, unknown>;
	for (const [name, value] of Object.entries(filters))
		for (const one of Array.isArray(value) ? value : [value])
			if (one !== undefined) url.searchParams.append(name, String(one));
	url.searchParams.set('limit', String(ctx.page.limit));
	url.searchParams.set('cursor', deps.cursors.seal(after, listScope(route, ctx.caller, params)));
	return url.href;
}
