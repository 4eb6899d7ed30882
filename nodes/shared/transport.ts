import { createHash } from 'node:crypto';
import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	ICredentialsDecrypted,
	IPollFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';
import type { Schemas } from './api';

const CREDENTIAL_TYPE = 'trainingLabApi';

type Context = IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions | IPollFunctions;

export interface RequestOptions {
	body?: IDataObject;
	qs?: IDataObject;
	/** Sent as `Idempotency-Key`: the server replays the first response to a repeated create. */
	idempotencyKey?: string;
	/** The input item the request is made for; its "Max Retries on Rate Limit" option applies. */
	itemIndex?: number;
}

/** An answer of the API: `T` is the JSON body the caller expects (an object unless said otherwise). */
export interface ApiResponse<T = IDataObject> {
	body: T;
	headers: Record<string, string | string[] | undefined>;
}

// A dropped connection or a gateway error may hide a request that succeeded; only requests that
// are safe to repeat (reads, deletes and creates carrying an Idempotency-Key) are sent again.
const TRANSIENT_RETRY_DELAYS_MS = [500, 1500];
const TRANSIENT_STATUSES = new Set([502, 503, 504]);
// How many refusals the API replays for one create before the refusal is taken as the answer.
const MAX_REFUSALS_REPLAYED = 10;

/**
 * Every request of the package goes through here: base URL from the credential, authentication by
 * n8n, `429` waited out for `Retry-After` seconds, transient failures of repeatable requests retried,
 * and API errors turned into a NodeApiError carrying the API's code and message.
 */
export async function apiRequestAs<T>(
	this: Context,
	method: IHttpRequestMethods,
	path: string,
	options: RequestOptions = {},
): Promise<ApiResponse<T>> {
	const { baseUrl, credentialsDecrypted } = await credentialsOf(this);
	let idempotencyKey = options.idempotencyKey;
	const repeatable = method !== 'POST' || idempotencyKey !== undefined;
	const maxRateLimitRetries = maxRateLimitRetriesOf(this, options.itemIndex);
	let rateLimitRetries = 0;
	let transientRetries = 0;
	let refusalsReplayed = 0;

	for (;;) {
		await rateLimitPause(this);
		let response: IN8nHttpFullResponse;
		try {
			response = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				CREDENTIAL_TYPE,
				{
					method,
					url: `${baseUrl}${path}`,
					qs: options.qs,
					body: options.body,
					json: true,
					headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {},
					returnFullResponse: true,
					ignoreHttpStatusErrors: true,
					disableFollowRedirect: true,
				},
				{ credentialsDecrypted },
			)) as IN8nHttpFullResponse;
		} catch (error) {
			if (repeatable && transientRetries < TRANSIENT_RETRY_DELAYS_MS.length) {
				await sleep(TRANSIENT_RETRY_DELAYS_MS[transientRetries++]);
				continue;
			}
			throw new NodeApiError(this.getNode(), error as JsonObject, { itemIndex: options.itemIndex });
		}

		const { statusCode } = response;
		if (statusCode === 429 && rateLimitRetries < maxRateLimitRetries) {
			rateLimitRetries++;
			pauseForRateLimit(this, retryAfterMs(response.headers));
			continue;
		}
		if (
			TRANSIENT_STATUSES.has(statusCode) &&
			repeatable &&
			transientRetries < TRANSIENT_RETRY_DELAYS_MS.length
		) {
			await sleep(TRANSIENT_RETRY_DELAYS_MS[transientRetries++]);
			continue;
		}
		if (
			statusCode >= 400 &&
			idempotencyKey !== undefined &&
			response.headers['idempotent-replayed'] === 'true' &&
			refusalsReplayed++ < MAX_REFUSALS_REPLAYED
		) {
			// The key's first request was refused and created nothing. What refused it may have been
			// put right since (a version published, a member removed), so the same intent tries again
			// under a key derived from this one: every later repeat follows the same chain of keys.
			idempotencyKey = `n8n-retry-${createHash('sha256').update(idempotencyKey).digest('base64url')}`;
			continue;
		}
		if (statusCode >= 400) throw apiError(this, response, options.itemIndex);
		return { body: response.body as T, headers: response.headers as ApiResponse['headers'] };
	}
}

/** What every request of one run of a node shares. */
interface RunState {
	credentials: Promise<{ baseUrl: string; credentialsDecrypted: ICredentialsDecrypted }>;
	/** When requests may go out again after a 429 (ms since the epoch); shared by all items in flight. */
	resumeAt: number;
}

const runStates = new WeakMap<Context, RunState>();

function runStateOf(context: Context): RunState {
	let state = runStates.get(context);
	if (!state) {
		const credentials = context.getCredentials(CREDENTIAL_TYPE).then((data) => {
			const stored = context.getNode().credentials?.[CREDENTIAL_TYPE];
			const { id, name } = { id: stored?.id ?? '', name: stored?.name ?? '' };
			return {
				baseUrl: String(data.baseUrl).replace(/\/+$/, ''),
				credentialsDecrypted: { id, name, type: CREDENTIAL_TYPE, data },
			};
		});
		// A failed load is not kept: the next request asks again.
		credentials.catch(() => runStates.delete(context));
		state = { credentials, resumeAt: 0 };
		runStates.set(context, state);
	}
	return state;
}

/**
 * The credential, loaded once per run of the node (n8n reads and decrypts it from its database at
 * every load) and handed to n8n's authentication with every request.
 */
function credentialsOf(context: Context) {
	return runStateOf(context).credentials;
}

/** After a 429, every request of the run waits until the API's Retry-After has passed. */
function pauseForRateLimit(context: Context, waitMs: number): void {
	const state = runStateOf(context);
	state.resumeAt = Math.max(state.resumeAt, Date.now() + waitMs);
}

async function rateLimitPause(context: Context): Promise<void> {
	for (;;) {
		const waitMs = runStateOf(context).resumeAt - Date.now();
		if (waitMs <= 0) return;
		await sleep(waitMs);
	}
}

/** Follows `Link: rel="next"` until `limit` items (or all of them) are collected. */
export async function apiRequestAllItems<T extends IDataObject = IDataObject>(
	this: Context,
	path: string,
	options: RequestOptions & { limit?: number } = {},
): Promise<T[]> {
	const items: T[] = [];
	const pageSize = Math.min(options.limit ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);
	const pages = apiRequestPages<T>;
	for await (const page of pages.call(this, path, pageSize, options)) {
		items.push(...page);
		if (options.limit !== undefined && items.length >= options.limit) break;
	}
	return options.limit === undefined ? items : items.slice(0, options.limit);
}

const MAX_PAGE_SIZE = 200;

/**
 * The pages of a list, one request each, following `Link: rel="next"`; the caller stops early by
 * leaving the loop, and no further page is asked for.
 */
export async function* apiRequestPages<T extends IDataObject = IDataObject>(
	this: Context,
	path: string,
	pageSize: number = MAX_PAGE_SIZE,
	options: RequestOptions = {},
): AsyncGenerator<T[]> {
	const requestPage = apiRequestAs<T[]>;
	let cursor: string | undefined;
	do {
		const { body, headers } = await requestPage.call(this, 'GET', path, {
			...options,
			qs: { ...options.qs, limit: pageSize, ...(cursor ? { cursor } : {}) },
		});
		yield body;
		cursor = nextCursor(headers.link);
	} while (cursor);
}

/**
 * A failure as a node throws it: a NodeApiError keeps the API's code, status and message (and gets
 * the item it failed for); anything else becomes a NodeOperationError naming the item.
 */
export function nodeErrorOf(
	context: Context,
	error: unknown,
	itemIndex?: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError) {
		if (itemIndex !== undefined) error.context.itemIndex ??= itemIndex;
		// Re-wrapping a NodeApiError hands back the same error, with the API's code and message.
		return new NodeApiError(context.getNode(), error as unknown as JsonObject);
	}
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}

/**
 * A path of the API with every interpolated value URL-encoded, so that no ID can change the path:
 * apiPath`/orgs/${orgId}/members/${userId}`.
 */
export function apiPath(strings: TemplateStringsArray, ...values: string[]): string {
	return strings.reduce((path, part, index) => path + encodeURIComponent(values[index - 1]) + part);
}

/** A request whose answer is a JSON object, the usual case; `apiRequestAs<T>` for any other shape. */
export const apiRequest = apiRequestAs<IDataObject>;
const requestPrincipal = apiRequestAs<Schemas['Principal']>;

/** The organization of the credential's key (`GET /me`); `itemIndex` names the item in its errors. */
export async function fetchOrgId(this: Context, itemIndex?: number): Promise<string> {
	return (await requestPrincipal.call(this, 'GET', '/me', { itemIndex })).body.org.id;
}

/**
 * The organization of the credential's key, which must act as admin: `needs` names what the
 * trigger does with it ("The activity log"), so the error says why a trainer key is refused.
 */
export async function fetchAdminOrgId(
	this: IHookFunctions | IPollFunctions,
	needs: string,
): Promise<string> {
	const me = (await requestPrincipal.call(this, 'GET', '/me')).body;
	if (me.role !== 'admin') {
		throw new NodeOperationError(
			this.getNode(),
			`${needs} needs an admin API key; this credential's key acts as ${me.role}`,
			{
				description:
					'Create an admin key (Training Lab → API Key → Create, role admin) and use it in the credential.',
			},
		);
	}
	return me.org.id;
}

/**
 * The cursor of the next page. Only the cursor is taken from the Link URL: requests keep going to
 * the credential's base URL, whatever host the server believes it has.
 */
export function nextCursor(link: string | string[] | undefined): string | undefined {
	const header = Array.isArray(link) ? link.join(', ') : link;
	const next = header ? /<([^>]+)>\s*;\s*rel="next"/.exec(header)?.[1] : undefined;
	return next ? (new URL(next).searchParams.get('cursor') ?? undefined) : undefined;
}

const DEFAULT_MAX_RATE_LIMIT_RETRIES = 5;

/** The node's "Max Retries on Rate Limit" option; pickers, which have no item, use the default. */
function maxRateLimitRetriesOf(context: Context, itemIndex: number | undefined): number {
	if (itemIndex === undefined || !('getInputData' in context))
		return DEFAULT_MAX_RATE_LIMIT_RETRIES;
	return context.getNodeParameter(
		'requestOptions.maxRateLimitRetries',
		itemIndex,
		DEFAULT_MAX_RATE_LIMIT_RETRIES,
	) as number;
}

function retryAfterMs(headers: IN8nHttpFullResponse['headers']): number {
	const seconds = Number(headers['retry-after']);
	return (Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000;
}

function apiError(
	context: Context,
	response: IN8nHttpFullResponse,
	itemIndex: number | undefined,
): NodeApiError {
	// Any 4xx or 5xx of the API carries the error envelope; a proxy in between may answer otherwise.
	const envelope = (response.body as Partial<Schemas['Error']> | undefined)?.error;
	const details = envelope?.details
		?.map((detail) => `${detail.path || '(body)'}: ${detail.message}`)
		.join('; ');
	const error = new NodeApiError(context.getNode(), (response.body ?? {}) as JsonObject, {
		httpCode: String(response.statusCode),
		message: envelope?.message ?? `The Training Lab API answered HTTP ${response.statusCode}`,
		description:
			[envelope?.code && `Error code: ${envelope.code}`, details].filter(Boolean).join(' — ') ||
			undefined,
		itemIndex,
	});
	if (envelope?.code) error.context.apiCode = envelope.code;
	return error;
}
