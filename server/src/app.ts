import express, { type Express } from 'express';
import type { Config } from './config.ts';
import { identifyCaller } from './http/caller.ts';
import { CONSOLE_PATH, consoleRouter } from './http/console.ts';
import { guardRequest } from './http/edge.ts';
import type { Clock } from './core/clock.ts';
import type { Logger } from './core/logger.ts';
import { errorHandler, notFoundHandler } from './http/error-handler.ts';
import { ApiError } from './core/errors.ts';
import { buildOpenApiDocument } from './http/openapi.ts';
import { RateLimiter } from './http/rate-limit.ts';
import { metricsEndpoint } from './http/metrics-endpoint.ts';
import { mountRoutes } from './http/router.ts';
import type { ServerMetrics } from './observability/metrics.ts';
import type { Tracing } from './observability/tracing.ts';
import { observeRequests } from './http/request-observer.ts';
import type { CursorSeal } from './core/cursor-seal.ts';
import { ROUTES } from './routes/index.ts';
import type { Services } from './services/index.ts';

export const API_PREFIX = '/api/v1';
export const API_VERSION = '1.0.0';

interface AppDeps {
	config: Config;
	services: Services;
	logger: Logger;
	clock: Clock;
	cursors: CursorSeal;
	/** Where clients reach the server, e.g. `https://labs.example.com` (no trailing slash); known once listening. */
	publicUrl: () => string;
	/** The built web console; without it, /console answers how to build it. */
	consoleDir?: string;
	/** Served at /metrics: given when the configuration enables metrics. */
	metrics?: ServerMetrics;
	/** A span per request, in which its events are recorded. */
	tracing?: Tracing;
}

export function createApp(deps: AppDeps): Express {
	const app = express();
	app.disable('x-powered-by');
	app.set('etag', false);
	const { metrics } = deps;
	if (metrics || deps.tracing)
		app.use(
			observeRequests({ tracing: deps.tracing, metrics, apiPrefix: API_PREFIX, routes: ROUTES }),
		);
	app.use(guardRequest);
	// No endpoint answers OPTIONS (there is no CORS: keys never belong in a browser); without this,
	// Express would answer with the list of methods of any path, to anyone.
	app.use((req, _res, next) =>
		next(
			req.method === 'OPTIONS'
				? new ApiError('not_found', `No such endpoint: OPTIONS ${req.path}`)
				: undefined,
		),
	);

	app.get('/healthz', (_req, res) => {
		res.json({ status: 'ok' });
	});
	app.get('/', (_req, res) => res.redirect(302, `${CONSOLE_PATH}/`));
	app.use(CONSOLE_PATH, consoleRouter(deps.consoleDir));

	const api = express.Router();
	const rateLimiter = new RateLimiter({
		...deps.config.rateLimit,
		clock: deps.clock,
		refused: metrics && (() => metrics.rateLimited()),
	});
	api.use(identifyCaller(deps.services.apiKeys), rateLimiter.middleware());
	const openApiDocument = buildOpenApiDocument(ROUTES, {
		version: API_VERSION,
		prefix: API_PREFIX,
	});
	api.get('/openapi.json', (_req, res) => {
		res.json(openApiDocument);
	});
	mountRoutes(api, ROUTES, {
		...deps,
		apiPrefix: API_PREFIX,
		apiBaseUrl: () => `${deps.publicUrl()}${API_PREFIX}`,
	});
	app.use(API_PREFIX, api);
	// After the API: its requests, nearly all there are, never test this path (282 instructions
	// each of the request thread's, callgrind, docs/performance.md).
	if (metrics) app.get('/metrics', metricsEndpoint(metrics, deps.config.metrics.token));

	app.use(notFoundHandler);
	app.use(errorHandler(deps.logger));
	return app;
}
