import type { Lab, LabVersion } from '../../server/src/schemas/labs.ts';

export interface ApiResponse<T = any> {
	status: number;
	headers: Headers;
	body: T;
	text: string;
}

export interface RequestOptions {
	body?: unknown;
	/** Sent as-is instead of JSON-encoding `body`. */
	rawBody?: string | Buffer;
	headers?: Record<string, string>;
	key?: string | null;
}

/** A thin fetch wrapper: JSON in, JSON out, with the API key of the caller it represents. */
export class ApiClient {
	readonly baseUrl: string;
	readonly key: string | null;

	constructor(baseUrl: string, key: string | null = null) {
		this.baseUrl = baseUrl;
		this.key = key;
	}

	as(key: string | null): ApiClient {
		return new ApiClient(this.baseUrl, key);
	}

	async request<T = any>(
		method: string,
		path: string,
		options: RequestOptions = {},
	): Promise<ApiResponse<T>> {
		const headers: Record<string, string> = { ...options.headers };
		const key = options.key === undefined ? this.key : options.key;
		if (key !== null) headers.authorization ??= `Bearer ${key}`;
		let body: string | Buffer | undefined = options.rawBody;
		if (body === undefined && options.body !== undefined) {
			body = JSON.stringify(options.body);
			headers['content-type'] ??= 'application/json';
		}
		const url = path.startsWith('http') ? path : `${this.baseUrl}${path}`;
		const response = await fetch(url, { method, headers, body: body as BodyInit | undefined });
		const text = await response.text();
		let parsed: unknown;
		try {
			parsed = text ? JSON.parse(text) : undefined;
		} catch {
			parsed = undefined;
		}
		return { status: response.status, headers: response.headers, body: parsed as T, text };
	}

	get<T = any>(path: string, options?: RequestOptions) {
		return this.request<T>('GET', path, options);
	}
	post<T = any>(path: string, body?: unknown, options?: RequestOptions) {
		return this.request<T>('POST', path, { ...options, body });
	}
	patch<T = any>(path: string, body?: unknown, options?: RequestOptions) {
		return this.request<T>('PATCH', path, { ...options, body });
	}
	delete<T = any>(path: string, options?: RequestOptions) {
		return this.request<T>('DELETE', path, options);
	}

	/**
	 * Follows `Link: rel="next"` from `path` to the last page; returns every item and the pages seen.
	 * A page refused with `429` is asked for again when its `Retry-After` has passed, as a client
	 * should: a test reading with the key its n8n workflow also uses shares that key's budget.
	 */
	async getAll<T = any>(path: string): Promise<{ items: T[]; pages: number }> {
		const items: T[] = [];
		let next: string | null = path;
		let pages = 0;
		while (next) {
			const response: ApiResponse<T[]> = await this.get<T[]>(next);
			if (response.status === 429) {
				const seconds = Number(response.headers.get('retry-after')) || 1;
				await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
				continue;
			}
			if (response.status !== 200)
				throw new Error(`GET ${next} → ${response.status} ${response.text}`);
			items.push(...response.body);
			pages++;
			next = nextLink(response.headers);
		}
		return { items, pages };
	}
}

export function nextLink(headers: Headers): string | null {
	const link = headers.get('link');
	return link ? (/<([^>]+)>;\s*rel="next"/.exec(link)?.[1] ?? null) : null;
}

/**
 * The first lab of an organization made with `--demo` and its versions: version 1 published,
 * version 2 a draft.
 */
export async function demoVersionsOf(
	api: ApiClient,
): Promise<{ labId: string; published: string; draft: string }> {
	const labId = (await api.get<Lab[]>('/labs')).body[0].id;
	const versions = (await api.get<LabVersion[]>(`/labs/${labId}/versions`)).body;
	return {
		labId,
		published: versions.find((version) => version.status === 'published')!.id,
		draft: versions.find((version) => version.status === 'draft')!.id,
	};
}
