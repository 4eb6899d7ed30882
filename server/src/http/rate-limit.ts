import type { NextFunction, Request, Response } from 'express';
import type { Clock } from '../core/clock.ts';
import { ApiError } from '../core/errors.ts';
import { identityOf } from './caller.ts';

interface Window {
	startedAt: number;
	used: number;
}

interface RateLimitOptions {
	requests: number;
	windowSeconds: number;
	clock: Clock;
	/** Told of each request refused (for /metrics). */
	refused?: () => void;
}

/**
 * Fixed-window budget per API key (per client address for requests without a valid key),
 * advertised with the IETF RateLimit / RateLimit-Policy headers on every response.
 */
export class RateLimiter {
	readonly #limit: number;
	readonly #windowMs: number;
	readonly #clock: Clock;
	readonly #refused: () => void;
	readonly #windows = new Map<string, Window>();
	#lastSweep = 0;

	constructor(options: RateLimitOptions) {
		this.#limit = options.requests;
		this.#windowMs = options.windowSeconds * 1000;
		this.#clock = options.clock;
		this.#refused = options.refused ?? (() => {});
	}

	get policy(): string {
		return `"default";q=${this.#limit};w=${this.#windowMs / 1000}`;
	}

	/** Spends one request of the budget of `id` if any is left. */
	take(id: string): { allowed: boolean; remaining: number; resetSeconds: number } {
		const now = this.#clock.now();
		this.#sweep(now);
		let window = this.#windows.get(id);
		if (!window || now - window.startedAt >= this.#windowMs) {
			window = { startedAt: now, used: 0 };
			this.#windows.set(id, window);
		}
		const allowed = window.used < this.#limit;
		if (allowed) window.used++;
		const resetSeconds = Math.max(1, Math.ceil((window.startedAt + this.#windowMs - now) / 1000));
		return { allowed, remaining: this.#limit - window.used, resetSeconds };
	}

	middleware() {
		return (req: Request, res: Response, next: NextFunction): void => {
			const identity = identityOf(req);
			const id = identity.caller
				? `key:${identity.caller.keyId}`
				: `ip:${req.socket.remoteAddress ?? 'unknown'}`;
			const { allowed, remaining, resetSeconds } = this.take(id);
			res.setHeader('RateLimit-Policy', this.policy);
			res.setHeader('RateLimit', `"default";r=${remaining};t=${resetSeconds}`);
			if (allowed) return next();
			res.setHeader('Retry-After', String(resetSeconds));
			this.#refused();
			next(new ApiError('rate_limited', `Rate limit exceeded; retry after ${resetSeconds} s.`));
		};
	}

	/** Forgets finished windows once per window length, so memory follows the number of active callers. */
	#sweep(now: number): void {
		if (now - this.#lastSweep < this.#windowMs) return;
		this.#lastSweep = now;
		for (const [id, window] of this.#windows) {
			if (now - window.startedAt >= this.#windowMs) this.#windows.delete(id);
		}
	}
}
