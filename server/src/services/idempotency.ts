import { createHash } from 'node:crypto';
import { ApiError } from '../core/errors.ts';
import { DomainService } from './domain-service.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
// 400, 401, 403 and 429 are answers about the request, not outcomes: retrying with a fix must work.
const STORED_ERROR_STATUSES = new Set([404, 409]);

export interface StoredResponse {
	status: number;
	body: unknown;
	replayed: boolean;
}

interface IdempotentRequest {
	orgId: string;
	/** Method and concrete path, e.g. `POST /sessions/…/start`. */
	route: string;
	key: string;
	body: unknown;
	secretFields: readonly string[];
}

/**
 * `Idempotency-Key` handling: the first response to a key is stored in the same transaction as the
 * change it reports, so a retry replays exactly what happened, and a crash leaves either both or neither.
 */
export class IdempotencyService extends DomainService {
	/** The stored response for this request, or null if there is none; 409 when the key was used with another body. */
	replay(request: IdempotentRequest): StoredResponse | null {
		const stored = this.repos.idempotency.findSince(
			request.orgId,
			request.route,
			request.key,
			this.clock.now() - IDEMPOTENCY_TTL_MS,
		);
		if (!stored) return null;
		if (stored.fingerprint !== fingerprint(request.body)) {
			throw new ApiError(
				'idempotency_conflict',
				'This Idempotency-Key was already used with a different request body.',
			);
		}
		return {
			status: stored.status,
			body: stored.body === null ? undefined : JSON.parse(stored.body),
			replayed: true,
		};
	}

	/** Runs `execute` once for the key (or replays) and stores its outcome with it. */
	run(request: IdempotentRequest, status: number, execute: () => unknown): StoredResponse {
		try {
			return this.transaction(() => {
				const earlier = this.replay(request);
				if (earlier) return earlier;
				const body = execute();
				this.#save(request, status, body);
				return { status, body, replayed: false };
			});
		} catch (error) {
			// The change rolled back; a definitive refusal (404, 409) is still the outcome of this key.
			if (
				error instanceof ApiError &&
				STORED_ERROR_STATUSES.has(error.status) &&
				error.code !== 'idempotency_conflict'
			) {
				this.#save(request, error.status, error.toEnvelope());
			}
			throw error;
		}
	}

	purgeExpired(): number {
		return this.repos.idempotency.deleteOlderThan(this.clock.now() - IDEMPOTENCY_TTL_MS);
	}

	#save(request: IdempotentRequest, status: number, body: unknown): void {
		this.repos.idempotency.save({
			org_id: request.orgId,
			route: request.route,
			key: request.key,
			fingerprint: fingerprint(request.body),
			status,
			body: body === undefined ? null : JSON.stringify(withoutFields(body, request.secretFields)),
			created_at: this.clock.now(),
		});
	}
}

function withoutFields(body: unknown, fields: readonly string[]): unknown {
	if (fields.length === 0 || typeof body !== 'object' || body === null) return body;
	return Object.fromEntries(Object.entries(body).filter(([name]) => !fields.includes(name)));
}

/** Hash of the validated body with object keys sorted, so the same JSON in another key order is the same request. */
function fingerprint(body: unknown): string {
	return createHash('sha256')
		.update(JSON.stringify(canonical(body ?? null)))
		.digest('base64url');
}

function canonical(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(canonical);
	if (typeof value === 'object' && value !== null) {
		return Object.fromEntries(
			Object.keys(value)
				.sort()
				.map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
		);
	}
	return value;
}
