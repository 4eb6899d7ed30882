import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress, urlHost } from '../lib/network-policy.ts';
import type { KeptResponse, SendOutcome } from './types.ts';

/**
 * The header a receiver that registered its endpoint with `require_receipt` answers each delivery
 * it took with, holding the delivery's `webhook-id`: a 2xx without it (a proxy's page, n8n's
 * "starting up") did not come from that receiver.
 */
export const RECEIPT_HEADER = 'webhook-receipt';

/** How much of an answer's body is read and kept. */
export const MAX_RESPONSE_BYTES = 4096;
const MAX_HEADER_VALUE_CHARS = 512;

/**
 * The answer headers an attempt keeps: those that say what answered and why, never cookies or
 * credentials (an answer could carry a session of the receiver's own).
 */
const KEPT_RESPONSE_HEADERS = new Set([
	'content-type',
	'content-length',
	'content-encoding',
	'date',
	'server',
	'via',
	'location',
	'retry-after',
	'x-request-id',
	'x-correlation-id',
	'cf-ray',
	'x-amzn-requestid',
	RECEIPT_HEADER,
]);

interface SenderOptions {
	timeoutMs: number;
	/** Allow http:// and non-public targets (local development and tests only). */
	allowInsecureUrls: boolean;
	maxSockets: number;
	/** The time, Unix ms: a `Retry-After` that is a date is read against it. */
	now: () => number;
}

/**
 * POSTs one webhook: never follows a redirect, reads at most 4 KB of the answer, gives up after
 * the timeout, and (unless insecure URLs are allowed) connects only over https to public addresses,
 * checked on the addresses actually connected to, so DNS cannot be used to reach inside. Tells
 * what the attempt came to (`SendOutcome`): the only place that reads the receiver's HTTP.
 */
export class WebhookSender {
	readonly #options: SenderOptions;
	readonly #httpAgent: HttpAgent;
	readonly #httpsAgent: HttpsAgent;

	constructor(options: SenderOptions) {
		this.#options = options;
		const agentOptions = { keepAlive: true, maxSockets: options.maxSockets };
		this.#httpAgent = new HttpAgent(agentOptions);
		this.#httpsAgent = new HttpsAgent(agentOptions);
	}

	/**
	 * The outcome of one attempt, or null when `signal` aborted it (the attempt then does not count).
	 * With `receipt`, a 2xx counts only when it carries that receipt (`RECEIPT_HEADER`).
	 */
	async post(
		rawUrl: string,
		body: string,
		headers: Record<string, string>,
		options: { signal?: AbortSignal; receipt?: string } = {},
	): Promise<SendOutcome | null> {
		const { signal, receipt } = options;
		const url = new URL(rawUrl);
		const refusal = this.#refusal(url);
		if (refusal) return unanswered(refusal);
		if (signal?.aborted) return null;
		const https = url.protocol === 'https:';
		return new Promise<SendOutcome | null>((resolve) => {
			let settled = false;
			const settle = (result: SendOutcome | null) => {
				if (settled) return;
				settled = true;
				clearTimeout(timer);
				signal?.removeEventListener('abort', abort);
				resolve(result);
			};
			const abort = () => {
				settle(null);
				request.destroy();
			};
			const send = () => {
				const sent = (https ? httpsRequest : httpRequest)(url, {
					method: 'POST',
					agent: https ? this.#httpsAgent : this.#httpAgent,
					lookup: this.#options.allowInsecureUrls ? undefined : publicOnlyLookup,
					headers: {
						'content-type': 'application/json',
						'content-length': Buffer.byteLength(body),
						'user-agent': 'TrainingLab-Webhooks/1',
						...headers,
					},
				});
				sent.on('error', (error: NodeJS.ErrnoException) => {
					// A kept-alive connection the receiver closed as it was taken again (its idle timeout
					// and our next delivery crossing), before any answer: sent again, once, on a new
					// connection, as Node's documentation advises, rather than spending an attempt of the
					// schedule. Had the receiver read it, it gets it twice with one `webhook-id`, as with
					// any retry. A timeout or an abort destroys the request after settling: no resend.
					if (sent.reusedSocket && !retried && error.code === 'ECONNRESET' && !settled) {
						retried = true;
						request = send();
					} else settle(unanswered(describe(error)));
				});
				sent.on('response', (response) => {
					readCapped(response).then(({ body, truncated }) => {
						const kept = { headers: keptHeaders(response), body, bodyTruncated: truncated };
						const unreceipted =
							receipt !== undefined && response.headers[RECEIPT_HEADER] !== receipt;
						settle(outcomeOf(response.statusCode ?? 0, kept, unreceipted, this.#options.now()));
					});
				});
				sent.end(body);
				return sent;
			};
			let retried = false;
			let request = send();
			const timer = setTimeout(() => {
				request.destroy();
				settle(unanswered(`Timed out after ${this.#options.timeoutMs} ms`));
			}, this.#options.timeoutMs);
			signal?.addEventListener('abort', abort);
		});
	}

	close(): void {
		this.#httpAgent.destroy();
		this.#httpsAgent.destroy();
	}

	#refusal(url: URL): string | null {
		if (this.#options.allowInsecureUrls) return null;
		if (url.protocol !== 'https:') return 'Refused: webhook URLs must use https';
		const host = urlHost(url);
		if (isIP(host) && !isPublicAddress(host)) return `Refused: ${host} is not a public address`;
		return null;
	}
}

/** DNS lookup that fails for any name resolving to a loopback, private or otherwise non-public address. */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
	dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
		if (error) return callback(error, '', 0);
		const blocked = addresses.find((entry) => !isPublicAddress(entry.address));
		if (blocked || addresses.length === 0) {
			const refused = Object.assign(
				new Error(
					`Refused: ${hostname} resolves to non-public address ${blocked?.address ?? '(none)'}`,
				),
				{
					code: 'ENONPUBLIC',
				},
			);
			return callback(refused, '', 0);
		}
		if (options.all)
			return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
		callback(null, addresses[0].address, addresses[0].family);
	});
};

/** The first `MAX_RESPONSE_BYTES` of the body, and whether there was more. */
function readCapped(response: IncomingMessage): Promise<{ body: string; truncated: boolean }> {
	return new Promise((resolve) => {
		const chunks: Buffer[] = [];
		let size = 0;
		let done = false;
		const finish = () => {
			if (done) return;
			done = true;
			const read = Buffer.concat(chunks);
			resolve({
				body: utf8Prefix(read, MAX_RESPONSE_BYTES),
				truncated: read.length > MAX_RESPONSE_BYTES,
			});
		};
		response.on('data', (chunk: Buffer) => {
			chunks.push(chunk);
			size += chunk.length;
			// One byte past the limit tells a body that was cut from one that fits exactly.
			if (size > MAX_RESPONSE_BYTES) {
				response.destroy();
				finish();
			}
		});
		response.on('end', finish);
		response.on('error', finish);
		response.on('close', finish);
	});
}

/** At most `maxBytes` of `bytes` as text, never ending in part of a character. */
function utf8Prefix(bytes: Buffer, maxBytes: number): string {
	if (bytes.length <= maxBytes) return bytes.toString('utf8');
	let end = maxBytes;
	// Step back over continuation bytes (10xxxxxx) to the start of the character that was cut.
	while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
	return bytes.subarray(0, end).toString('utf8');
}

/**
 * The kept headers of an answer (`KEPT_RESPONSE_HEADERS`), each value at most 512 characters,
 * without the user name and password of any URL in them (`Location: https://admin:…@internal/`).
 */
function keptHeaders(response: IncomingMessage): Record<string, string> {
	const kept: Record<string, string> = {};
	for (const [name, value] of Object.entries(response.headers)) {
		if (!KEPT_RESPONSE_HEADERS.has(name) || value === undefined) continue;
		const text = Array.isArray(value) ? value.join(', ') : value;
		kept[name] = withoutUserInfo(text).slice(0, MAX_HEADER_VALUE_CHARS);
	}
	return kept;
}

/** `text` with the `user:password@` of each URL in it left out. */
function withoutUserInfo(text: string): string {
	return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi, '$1');
}

/**
 * n8n's answer for a webhook path it has no active workflow for (`WebhookNotFoundError`, 1.x and
 * 2.x): `{"code":404,"message":"The requested webhook \"POST <path>\" is not registered.", …}`.
 */
const N8N_NOT_REGISTERED = /The requested webhook \\?"[^"\\]*\\?" is not registered/;

/**
 * What an answer means for the delivery: delivered (a 2xx, with the receipt where one is required),
 * gone (410), n8n's "not registered" (404), a `429`/`503` asking with `Retry-After` to be tried
 * again later, or failed.
 */
export function outcomeOf(
	statusCode: number,
	response: KeptResponse,
	unreceipted: boolean,
	now: number,
): SendOutcome {
	const error = failureOf(statusCode, response.body, unreceipted);
	if (error === null) return { kind: 'delivered', statusCode, error, response };
	if (statusCode === 410) return { kind: 'gone', statusCode, error, response };
	if (statusCode === 404 && N8N_NOT_REGISTERED.test(response.body))
		return { kind: 'not_registered', statusCode, error, response };
	const afterMs =
		statusCode === 429 || statusCode === 503
			? retryAfterMs(response.headers['retry-after'], now)
			: null;
	if (afterMs !== null) return { kind: 'retry_after', statusCode, error, response, afterMs };
	return { kind: 'failed', statusCode, error, response };
}

/** An attempt that got no answer (refused, timed out, no connection). */
function unanswered(error: string): SendOutcome {
	return { kind: 'failed', statusCode: null, error, response: null };
}

/** The wait a `Retry-After` asks for (seconds, or an HTTP date), at least 0; null for a header that is neither. */
function retryAfterMs(value: string | undefined, now: number): number | null {
	const text = value?.trim();
	if (!text) return null;
	const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now;
	return Number.isNaN(ms) ? null : Math.max(0, ms);
}

function failureOf(statusCode: number, text: string, unreceipted: boolean): string | null {
	const success = statusCode >= 200 && statusCode < 300;
	if (success && !unreceipted) return null;
	const kind = success
		? ` without this delivery's ${RECEIPT_HEADER} (the endpoint requires one: another program answered)`
		: statusCode >= 300 && statusCode < 400
			? ' (redirects are not followed)'
			: '';
	const snippet = text.trim().slice(0, 200);
	return `HTTP ${statusCode}${kind}${snippet ? `: ${snippet}` : ''}`;
}

function describe(error: Error & { code?: string }): string {
	if (error.message.startsWith('Refused:')) return error.message;
	return error.code ? `${error.code}: ${error.message}` : error.message;
}
