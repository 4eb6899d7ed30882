import type { NextFunction, Request, Response } from 'express';
import { ApiError } from '../core/errors.ts';
import { hashApiKey, hashesEqual } from '../lib/api-key.ts';
import type { ServerMetrics } from '../observability/metrics.ts';
import { bearerToken } from './caller.ts';
import type { AnyRoute } from './route.ts';
import { notedRoute } from './router.ts';

/** Paths outside the API that keep their own name in the `route` label. */
const OTHER_ROUTES = ['/healthz', '/metrics', '/console'];

/** Times every request and counts it under its route template when its answer has been handed to the socket. */
export function countRequests(
	metrics: ServerMetrics,
	apiPrefix: string,
	routes: readonly AnyRoute[],
) {
	const templateOf = routeMatcher(apiPrefix, routes);
	return (req: Request, res: Response, next: NextFunction): void => {
		const started = process.hrtime.bigint();
		res.once('finish', () => {
			const seconds = Number(process.hrtime.bigint() - started) / 1e9;
			// Requests refused before routing (a 429) are matched against the table.
			const route = notedRoute(res) ?? templateOf(req.method, req.path);
			metrics.request(req.method, route, res.statusCode, seconds);
		});
		next();
	};
}

/** The route template a path falls under, or undefined: from the table, then the paths outside the API. */
function routeMatcher(apiPrefix: string, routes: readonly AnyRoute[]) {
	const compiled = routes.map((route) => ({
		method: route.method.toUpperCase(),
		template: `${apiPrefix}${route.path}`,
		pattern: new RegExp(`^${apiPrefix}${route.path.replace(/\{\w+\}/g, '[^/]+')}/?$`),
	}));
	return (method: string, path: string): string | undefined => {
		if (path.startsWith(`${apiPrefix}/`)) {
			const found = compiled.find((route) => route.method === method && route.pattern.test(path));
			return found?.template;
		}
		return OTHER_ROUTES.find((other) => path === other || path.startsWith(`${other}/`));
	};
}

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
			res.set('Content-Type', metrics.contentType).set('Cache-Control', 'no-store').send(text);
		} catch (error) {
			next(error);
		}
	};
}
