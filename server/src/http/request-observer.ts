import type { NextFunction, Request, Response } from 'express';
import type { ServerMetrics } from '../observability/metrics.ts';
import { epochMs, type RequestSpan } from '../observability/recorded-span.ts';
import type { Tracing } from '../observability/tracing.ts';
import type { AnyRoute } from './route.ts';
import { notedRoute } from './router.ts';

/** Methods that change nothing (RFC 9110): what they do records no event. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const STARTED = Symbol('started');
const SPAN = Symbol('span');

/** An answer being observed: when its request arrived (`performance.now()`), and its span. */
type Observed = Response & { [STARTED]: number; [SPAN]: RequestSpan | undefined };

/** Paths outside the API that keep their own name in the `route` label. */
const OTHER_ROUTES = ['/healthz', '/metrics', '/console'];

/**
 * What every request leaves behind, from one listener on its answer:
 * - with `tracing`, a server span, child of the caller's `traceparent` when it sends one; the
 *   handler of a request that may change something runs in it, so that the events it records are
 *   spans of the same trace. A read under no caller's trace, under which nothing runs, makes no
 *   span: its span is recorded from what its answer says (`Tracing.requestRows`);
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
	const rows = tracing?.requestRows;
	const templateOf = routeMatcher(options.apiPrefix, options.routes);
	// One listener for every request, which finds what it needs on the answer: a closure made for
	// each request cost the server more than the rest of observing it.
	function answered(this: Observed): void {
		const ended = performance.now();
		const route = notedRoute(this);
		const span = this[SPAN];
		if (span) {
			span.route = route;
			span.statusCode = this.statusCode;
			span.end(epochMs(ended));
		} else if (rows)
			rows.requestEnded(
				this.req.method,
				route,
				this.statusCode,
				epochMs(this[STARTED]),
				epochMs(ended),
			);
		if (metrics && this.writableFinished) {
			const { method, path } = this.req;
			// Requests refused before routing (a 429) are matched against the table.
			const template = route ?? templateOf(method, path);
			metrics.request(method, template, this.statusCode, (ended - this[STARTED]) / 1000);
		}
	}
	return (req: Request, res: Response, next: NextFunction): void => {
		const observed = res as Observed;
		const started = performance.now();
		observed[STARTED] = started;
		observed[SPAN] = undefined;
		// 'close' comes once, after 'finish' or when the client went away first.
		res.on('close', answered);
		if (!tracing) return next();
		const parent = tracing.extract(req.headers);
		const safe = SAFE_METHODS.has(req.method);
		if (safe && !tracing.inTrace(parent)) return next();
		const span = tracing.startRequestSpan(req.method, parent, epochMs(started));
		observed[SPAN] = span;
		// Only a change records events, whose spans are children of the request's.
		if (safe) next();
		else tracing.run(tracing.withSpan(parent, span), next);
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
