import type { Request, Response, Router } from 'express';
import type { Database } from 'better-sqlite3';
import type { Repositories } from '../repositories/index.ts';
import type { Page } from '../repositories/paging.ts';
import { actorOf, type Caller } from '../services/api-keys.ts';
import type { Services } from '../services/index.ts';
import { identityOf } from './caller.ts';
import { ApiError, notFound } from './errors.ts';
import { IdempotencyStore, type StoredResponse } from './idempotency.ts';
import { readJsonBody } from './json-body.ts';
import { allExistInOrg, assertScopable } from './resource-scope.ts';
import type { AnyRoute, RouteContext } from './route.ts';
import { parseInput } from './validate.ts';

export interface RouterDeps {
  db: Database;
  repos: Repositories;
  services: Services;
  idempotency: IdempotencyStore;
}

export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
}

/** Registers every route of the table on an Express router. */
export function mountRoutes(router: Router, routes: readonly AnyRoute[], deps: RouterDeps): void {
  for (const route of routes) {
    assertScopable(pathParamNames(route.path), `${route.method.toUpperCase()} ${route.path}`);
    const expressPath = route.path.replace(/\{(\w+)\}/g, ':$1');
    router[route.method](expressPath, async (req: Request, res: Response) => {
      const outcome = await handle(route, req, res, deps);
      send(req, res, route, outcome);
    });
  }
}

/** The checks in the order a client should meet them: who, which, may they, what, then do it. */
async function handle(route: AnyRoute, req: Request, res: Response, deps: RouterDeps): Promise<StoredResponse> {
  const caller = authenticated(req);
  const params = route.params ? parseInput(route.params, req.params, 'params') : undefined;
  if (params?.orgId !== undefined && params.orgId !== caller.org.id) throw notFound('Organisation');
  if (route.access === 'admin' && caller.role !== 'admin') {
    if (params && !allExistInOrg(deps.repos, caller.org.id, params)) throw notFound('Resource');
    throw new ApiError('forbidden', `This operation needs an admin key; this key acts as ${caller.role}.`);
  }
  const query = route.query ? parseInput(route.query, req.query, 'query') : undefined;
  const rawBody = route.body ? await readJsonBody(req, res) : undefined;
  if (route.body && rawBody === undefined) {
    throw new ApiError('validation_failed', 'A JSON request body is required (Content-Type: application/json).');
  }
  const body = route.body ? parseInput(route.body, rawBody, 'body') : undefined;
  const ctx: RouteContext<never, never, never> = {
    caller,
    actor: actorOf(caller),
    services: deps.services,
    params: params as never,
    query: query as never,
    body: body as never,
  };

  const key = idempotencyKey(req, route);
  if (key === undefined) {
    await route.precheck?.(ctx);
    return { status: route.success.status, body: route.handle(ctx), replayed: false };
  }
  const request = {
    orgId: caller.org.id,
    route: `${route.method.toUpperCase()} ${concretePath(route.path, params ?? {})}`,
    key,
    // The validated body: unknown fields are ignored by the API, so they do not make a request different.
    body,
    secretFields: route.secretFields ?? [],
  };
  const earlier = deps.idempotency.replay(request);
  if (earlier) return earlier;
  await route.precheck?.(ctx);
  return deps.idempotency.run(request, route.success.status, () => route.handle(ctx));
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
  if (typeof key !== 'string' || key.length < 1 || key.length > 255) {
    throw new ApiError('validation_failed', 'Idempotency-Key must be 1–255 characters.', [
      { path: 'Idempotency-Key', message: 'must be 1–255 characters' },
    ]);
  }
  return key;
}

function concretePath(path: string, params: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_whole, name: string) => params[name]);
}

function send(req: Request, res: Response, route: AnyRoute, outcome: StoredResponse): void {
  res.setHeader('Cache-Control', 'no-store');
  if (outcome.replayed) res.setHeader('Idempotent-Replayed', 'true');
  if (outcome.status === 204) {
    res.status(204).end();
    return;
  }
  if (route.success.list) {
    const page = outcome.body as Page<unknown>;
    if (page.nextCursor) res.setHeader('Link', `<${nextPageUrl(req, page.nextCursor)}>; rel="next"`);
    res.status(outcome.status).json(page.items);
    return;
  }
  res.status(outcome.status).json(outcome.body);
}

function nextPageUrl(req: Request, cursor: string): string {
  const url = new URL(req.originalUrl, `${req.protocol}://${req.get('host') ?? 'localhost'}`);
  url.searchParams.set('cursor', cursor);
  return url.href;
}
