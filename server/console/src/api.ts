// Every request the console makes goes through here: to /api/v1 on this origin, with the signed-in
// key as a Bearer token. The API decides everything (roles, validation, limits); the console shows
// its answers, and an error as the API's own code and message.
import type { paths } from './api.generated';
import type { ErrorDetail, ErrorEnvelope } from './types.ts';

export const API_BASE = '/api/v1';

/** An answer of the API other than 2xx, or no answer at all (status 0). */
export class ApiError extends Error {
	readonly status: number;
	readonly code: string;
	readonly details: ErrorDetail[];
	readonly retryAfterSeconds: number | null;

	constructor(
		status: number,
		code: string,
		message: string,
		details: ErrorDetail[] = [],
		retryAfterSeconds: number | null = null,
	) {
		super(message);
		this.status = status;
		this.code = code;
		this.details = details;
		this.retryAfterSeconds = retryAfterSeconds;
	}
}

export interface Page<T> {
	items: T[];
	/** The cursor of the next page (from the `Link: rel="next"` header), or null on the last page. */
	next: string | null;
}

type Method = 'get' | 'post' | 'patch' | 'delete';
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

/** The API's paths, as its OpenAPI document writes them (`/sessions/{sessionId}`), that take `M`. */
export type PathOf<M extends Method> = {
	[P in keyof paths]: paths[P][M] extends undefined ? never : P;
}[keyof paths];

/** The path parameters of an operation: `[]` when it has none, else `[{ orgId: … }]`. */
type PathParams<P extends keyof paths, M extends Method> =
	Operation<P, M> extends { parameters: { path: infer Params extends Record<string, string> } }
		? [params: Params]
		: [];

/** The JSON body of an operation's success answer (`undefined` for a 204). */
export type ResponseOf<P extends keyof paths, M extends Method> =
	Operation<P, M> extends { responses: infer Responses }
		? Responses[keyof Responses & (200 | 201 | 202)] extends {
				content: { 'application/json': infer Body };
			}
			? Body
			: undefined
		: never;

/** The JSON request body an operation takes (one it may leave out, too). */
type BodyOf<P extends keyof paths, M extends Method> = RequestBodyOf<
	NonNullable<Operation<P, M>['requestBody']>
>;
type RequestBodyOf<Request> = [Request] extends [never]
	? undefined
	: Request extends { content: { 'application/json': infer Body } }
		? Body
		: undefined;

/** One item of a list operation's answer. */
export type ItemOf<P extends PathOf<'get'>> =
	ResponseOf<P, 'get'> extends Array<infer Item> ? Item : never;

type Query = Record<string, string | number | readonly string[]>;

/** What a request sends besides its method and path. */
interface SendOptions {
	params?: Record<string, string>;
	body?: unknown;
	idempotencyKey?: string;
	query?: Query;
}

/**
 * The API as its OpenAPI document describes it: each call names a path of the document and its
 * parameters, and gets the body that path answers, so a wrong path, a wrong parameter, a body of
 * the wrong shape or a misread answer does not compile.
 */
export class Api {
	readonly #key: string;
	/** Called when the API refuses the key (revoked, member removed, organization closed). */
	readonly #onUnauthorized: (error: ApiError) => void;

	constructor(key: string, onUnauthorized: (error: ApiError) => void) {
		this.#key = key;
		this.#onUnauthorized = onUnauthorized;
	}

	async get<P extends PathOf<'get'>>(
		path: P,
		...[params]: PathParams<P, 'get'>
	): Promise<ResponseOf<P, 'get'>> {
		return (await this.#send('GET', path, { params })).body as ResponseOf<P, 'get'>;
	}

	/** One page of a list endpoint; `cursor` is the one a previous page's `next` gave. */
	async page<P extends PathOf<'get'>>(
		path: P,
		request: { query?: Query; cursor?: string | null },
		...[params]: PathParams<P, 'get'>
	): Promise<Page<ItemOf<P>>> {
		const query = { ...request.query, ...(request.cursor ? { cursor: request.cursor } : {}) };
		const answer = await this.#send('GET', path, { params, query });
		return { items: answer.body as ItemOf<P>[], next: nextCursor(answer.headers.get('link')) };
	}

	/** A create or action; `idempotencyKey` makes a repeated submission of one intent act once. */
	async post<P extends PathOf<'post'>>(
		path: P,
		request: { body?: BodyOf<P, 'post'>; idempotencyKey?: string },
		...[params]: PathParams<P, 'post'>
	): Promise<ResponseOf<P, 'post'>> {
		return (await this.#send('POST', path, { ...request, params })).body as ResponseOf<P, 'post'>;
	}

	async patch<P extends PathOf<'patch'>>(
		path: P,
		body: BodyOf<P, 'patch'>,
		...[params]: PathParams<P, 'patch'>
	): Promise<ResponseOf<P, 'patch'>> {
		return (await this.#send('PATCH', path, { body, params })).body as ResponseOf<P, 'patch'>;
	}

	async delete<P extends PathOf<'delete'>>(
		path: P,
		...[params]: PathParams<P, 'delete'>
	): Promise<void> {
		await this.#send('DELETE', path, { params });
	}

	async #send(
		method: Uppercase<Method>,
		path: string,
		{ params = {}, body, idempotencyKey, query = {} }: SendOptions,
	): Promise<{ body: unknown; headers: Headers }> {
		const search = new URLSearchParams();
		for (const [name, value] of Object.entries(query))
			for (const one of Array.isArray(value) ? value : [value]) search.append(name, String(one));
		const url =
			path.replace(/\{(\w+)\}/g, (_whole, name: string) => encodeURIComponent(params[name])) +
			(search.size > 0 ? `?${search}` : '');
		const headers: Record<string, string> = { authorization: `Bearer ${this.#key}` };
		if (body !== undefined) headers['content-type'] = 'application/json';
		if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
		let response: Response;
		try {
			response = await fetch(`${API_BASE}${url}`, {
				method,
				headers,
				body: body === undefined ? undefined : JSON.stringify(body),
				cache: 'no-store',
				credentials: 'omit',
				referrerPolicy: 'no-referrer',
			});
		} catch {
			throw new ApiError(0, 'network', 'The API server did not answer. Is it still running?');
		}
		if (response.ok) {
			const text = response.status === 204 ? '' : await response.text();
			return { body: text ? JSON.parse(text) : undefined, headers: response.headers };
		}
		const error = await errorOf(response);
		if (error.status === 401) this.#onUnauthorized(error);
		throw error;
	}
}

async function errorOf(response: Response): Promise<ApiError> {
	const retryAfter = Number(response.headers.get('retry-after'));
	try {
		const { error } = (await response.json()) as ErrorEnvelope;
		return new ApiError(
			response.status,
			error.code,
			error.message,
			error.details ?? [],
			Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
		);
	} catch {
		return new ApiError(response.status, 'unknown', `The API answered ${response.status}.`);
	}
}

/** The `cursor` of the `rel="next"` link of a `Link` header. */
export function nextCursor(link: string | null): string | null {
	if (!link) return null;
	for (const part of link.split(',')) {
		const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
		if (match) return new URL(match[1], location.origin).searchParams.get('cursor');
	}
	return null;
}

/** Follows every page of a list (for the small lists a form needs, such as labs). */
export async function all<P extends PathOf<'get'>>(
	api: Api,
	path: P,
	...params: PathParams<P, 'get'>
): Promise<ItemOf<P>[]> {
	const items: ItemOf<P>[] = [];
	let cursor: string | null = null;
	do {
		const page: Page<ItemOf<P>> = await api.page(
			path,
			{ query: { limit: 200 }, cursor },
			...params,
		);
		items.push(...page.items);
		cursor = page.next;
	} while (cursor);
	return items;
}
