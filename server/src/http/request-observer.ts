import type { NextFunction, Request, Response } from 'express';
import type { ServerMetrics } from '../observability/metrics.ts';
import { epochMs } from '../observability/recorded-span.ts';
import type { Tracing } from '../observability/tracing.ts';
import type { AnyRoute } from './route.ts';
import { notedRoute } from './router.ts';

/** Methods that change nothing (RFC 9110): what they do records no event. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Paths outside the API that keep their own name in the `route` label. */
const OTHER_ROUTES = ['/healthz', '/metrics', '/console'];

/**
 * What every request leaves behind, from one listener on its answer:
 * - with `tracing`, a server span, child of the caller's `traceparent` when it sends one; the
 *   handler of a request that may change something runs in it, so that the events it records are
 *   spans of the same trace;
 * - with `metrics`, its duration under its route template, once the answer has been handed to the
 *   socket (a request whose client went away first is not counted).
 * Both are named by the route template (never the path: no ids in span names or labels).
 */
export function observeRequests(options: {
	tracing?: Tracing;
	metrics?: ServerMetrics;
	apiPrefix: string;
	routes: readonly AnyRoute[];
}) {
	const { tracing, metrics } = options;
	const templateOf = routeMatcher(options.apiPrefix, options.routes);
	return (req: Request, res: Response, next: NextFunction): void => {
		const started = performance.now();
		const parent = tracing?.extract(req.headers);
		const span = tracing?.startRequestSpan(req.method, parent!, epochMs(started));
		// 'close' comes once, after 'finish' or when the client went away first.
		res.on('close', () => {
			const ended = performance.now();
			const route = notedRoute(res);
			if (span) {
				span.route = route;
				span.statusCode = res.statusCode;
				span.end(epochMs(ended));
			}
			if (metrics && res.writableFinished) {
				const seconds = (ended - started) / 1000;
				// Requests refused before routing (a 429) are matched against the table.
				metrics.request(
					req.method,
					route ?? templateOf(req.method, req.path),
					res.statusCode,
					seconds,
				);
			}
		});
		// Only a change records events, whose spans are children of the request's.
		if (tracing && span && !SAFE_METHODS.has(req.method))
			tracing.run(tracing.withSpan(parent!, span), next);
		else next();
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
