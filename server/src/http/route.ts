import type { z } from 'zod';
import type { Page, PageRequest } from '../core/paging.ts';
import type { listQuery } from '../schemas/common.ts';
import type { Actor } from '../core/actor.ts';
import type { Caller } from '../core/actor.ts';
import type { Services } from '../services/index.ts';
import type { ErrorCode } from '../core/errors.ts';

type Schema = z.ZodType | undefined;
type Parsed<S extends Schema> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteContext<P extends Schema, Q extends Schema, B extends Schema> {
	caller: Caller;
	actor: Actor;
	services: Services;
	params: Parsed<P>;
	query: Parsed<Q>;
	body: Parsed<B>;
	/** For list routes: the page asked for (`limit`, and the position an opened `cursor` points after). */
	page: PageRequest;
}

/**
 * One endpoint, declared once: Express registration, request validation, the role check and the
 * OpenAPI document are all derived from this.
 */
interface RouteDefinition<
	P extends Schema = Schema,
	Q extends Schema = Schema,
	B extends Schema = Schema,
> {
	method: 'get' | 'post' | 'patch' | 'delete';
	/** OpenAPI-style path below /api/v1, e.g. `/sessions/{sessionId}`. */
	path: string;
	operationId: string;
	tag: string;
	summary: string;
	description?: string;
	/** `member`: admins and trainers; `admin`: admins only (others get 403). */
	access: 'member' | 'admin';
	params?: P;
	query?: Q;
	body?: B;
	/** The body may be left out: it is then taken as `{}` (every field of `body` optional). */
	bodyOptional?: boolean;
	success: {
		status: 200 | 201 | 202 | 204;
		description: string;
		/** Schema of the body, or of one item when `list` is set (the body is then an array, paged with `Link`). */
		schema?: z.ZodType;
		list?: boolean;
	};
	/** Error codes specific to this operation (authentication, validation and rate-limit errors apply to all). */
	errors?: ErrorCode[];
	/** Response fields shown once only: left out when an idempotent request is replayed. */
	secretFields?: string[];
	/** Checks that need I/O (e.g. DNS), run before the synchronous handler and its transaction. */
	precheck?: (ctx: RouteContext<P, Q, B>) => Promise<void>;
	/** Synchronous, so that with its idempotency record it commits in one transaction. */
	handle: (ctx: RouteContext<P, Q, B>) => unknown;
}

// The type parameters exist only so each route's handler sees its own parsed input types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDefinition<any, any, any>;

/** An endpoint that answers with one resource (or nothing); lists use `defineListRoute`. */
export function defineRoute<
	P extends Schema = undefined,
	Q extends Schema = undefined,
	B extends Schema = undefined,
>(route: RouteDefinition<P, Q, B> & { success: { list?: false } }): RouteDefinition<P, Q, B> {
	return route;
}

/** What every list endpoint's query has: `limit` and `cursor` (`listQuery`), and maybe filters. */
type ListQuery = z.ZodType<{ limit: number; cursor?: string }>;

/**
 * A list endpoint: `GET`, no body, its handler must return a Page (items and the position of the
 * next page), which the router answers as a bare array with a sealed `Link: rel="next"`. The next
 * page's URL keeps the query's filters.
 */
export function defineListRoute<
	P extends Schema = undefined,
	Q extends ListQuery = ReturnType<typeof listQuery>,
>(
	route: Omit<RouteDefinition<P, Q, undefined>, 'method' | 'success' | 'body' | 'handle'> & {
		query: Q;
		success: { description: string; schema: z.ZodType };
		handle: (ctx: RouteContext<P, Q, undefined>) => Page<unknown>;
	},
): RouteDefinition<P, Q, undefined> {
	return { ...route, method: 'get', success: { ...route.success, status: 200, list: true } };
}
