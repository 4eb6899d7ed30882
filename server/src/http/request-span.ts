import type { NextFunction, Request, Response } from 'express';
import { SpanKind, SpanStatusCode, type Tracing } from '../observability/tracing.ts';
import { notedRoute } from './router.ts';

/**
 * A server span for every request, child of the caller's `traceparent` when it sends one; the
 * handler runs in it, so that the events it records are spans of the same trace. Named, once
 * answered, by its route template (never its path: no ids in span names).
 */
export function traceRequests(tracing: Tracing) {
	return (req: Request, res: Response, next: NextFunction): void => {
		const parent = tracing.extract(req.headers);
		const span = tracing.startSpan(
			req.method,
			{ kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method } },
			parent,
		);
		let ended = false;
		const end = () => {
			if (ended) return;
			ended = true;
			const route = notedRoute(res);
			if (route) {
				span.updateName(`${req.method} ${route}`);
				span.setAttribute('http.route', route);
			}
			span.setAttribute('http.response.status_code', res.statusCode);
			if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
			span.end();
		};
		res.once('finish', end);
		res.once('close', end);
		tracing.run(tracing.withSpan(parent, span), next);
	};
}
