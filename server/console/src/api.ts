// Every request the console makes goes through here: to /api/v1 on this origin, with the signed-in
// key as a Bearer token. The API decides everything (roles, validation, limits); the console shows
// its answers, and an error as the API's own code and message.
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

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export class Api {
	readonly #key: string;
	/** Called when the API refuses the key (revoked, member removed, organization closed). */
	readonly #onUnauthorized: (error: ApiError) => void;

	constructor(key: string, onUnauthorized: (error: ApiError) => void) {
		this.#key = key;
		this.#onUnauthorized = onUnauthorized;
	}

	get<T>(path: string): Promise<T> {
		return this.#send<T>('GET', path).then((answer) => answer.body);
	}

	/** One page of a list endpoint; `cursor` is the one a previous page's `next` gave. */
	async page<T>(path: string, query: Record<string, string | number> = {}, cursor?: string | null) {
		const params = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
		if (cursor) params.set('cursor', cursor);
		const search = params.size > 0 ? `?${params}` : '';
		const answer = await this.#send<T[]>('GET', `${path}${search}`);
		return { items: answer.body, next: nextCursor(answer.headers.get('link')) } satisfies Page<T>;
	}

	/** A create or action; `idempotencyKey` makes a repeated submission of one intent act once. */
	post<T>(path: string, body?: unknown, idempotencyKey?: string): Promise<T> {
		return this.#send<T>('POST', path, body, idempotencyKey).then((answer) => answer.body);
	}

	patch<T>(path: string, body: unknown): Promise<T> {
		return this.#send<T>('PATCH', path, body).then((answer) => answer.body);
	}

	delete(path: string): Promise<void> {
		return this.#send<void>('DELETE', path).then(() => undefined);
	}

	async #send<T>(method: Method, path: string, body?: unknown, idempotencyKey?: string) {
		const headers: Record<string, string> = { authorization: `Bearer ${this.#key}` };
		if (body !== undefined) headers['content-type'] = 'application/json';
		if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
		let response: Response;
		try {
			response = await fetch(`${API_BASE}${path}`, {
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
			return { body: (text ? JSON.parse(text) : undefined) as T, headers: response.headers };
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
export async function all<T>(api: Api, path: string): Promise<T[]> {
	const items: T[] = [];
	let cursor: string | null = null;
	do {
		const page: Page<T> = await api.page<T>(path, { limit: 200 }, cursor);
		items.push(...page.items);
		cursor = page.next;
	} while (cursor);
	return items;
}
