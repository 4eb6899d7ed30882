import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../core/errors.ts';
import { hashApiKey, hashesEqual } from '../lib/api-key.ts';
import type { ServerMetrics } from '../observability/metrics.ts';
import { bearerToken } from './caller.ts';

/**
 * `GET /metrics` in Prometheus' text format. With a token, only `Authorization: Bearer <token>`
 * (compared in constant time); anything else gets the API's 401 envelope and nothing more.
 */
export function metricsEndpoint(metrics: ServerMetrics, token: string | undefined) {
	const expected = token === undefined ? undefined : hashApiKey(token);
	return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
		if (expected) {
			const token = bearerToken(req.headers.authorization);
			if (!token || !hashesEqual(hashApiKey(token), expected)) {
				next(
					new ApiError('unauthorized', 'This endpoint needs its metrics token as a Bearer token.'),
				);
				return;
			}
		}
		try {
			const text = await metrics.text();
			res.setHeader('Content-Type', metrics.contentType);
			res.setHeader('Cache-Control', 'no-store');
			// As a string, as the API's JSON goes (json-answer.ts): Express's `send` turns a text of 1,000
			// characters or more into a Buffer. On a server whose answers were all short, the first scrape
			// sent so deoptimised about a hundred functions every answer goes through, against about
			// thirty as a string (docs/performance.md).
			res.end(text);
		} catch (error) {
			next(error);
		}
	};
}
