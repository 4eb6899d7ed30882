import express, { type Express } from 'express';
import type { Config } from './config.ts';
import type { Database } from './db/connection.ts';
import { identifyCaller } from './http/caller.ts';
import { errorHandler, notFoundHandler, type Logger } from './http/error-handler.ts';
import type { IdempotencyStore } from './http/idempotency.ts';
import { buildOpenApiDocument } from './http/openapi.ts';
import { RateLimiter } from './http/rate-limit.ts';
import { mountRoutes } from './http/router.ts';
import type { Repositories } from './repositories/index.ts';
import { ROUTES } from './routes/index.ts';
import type { Services } from './services/index.ts';

export const API_PREFIX = '/api/v1';
export const API_VERSION = '1.0.0';

export interface AppDeps {
  config: Config;
  db: Database;
  repos: Repositories;
  services: Services;
  idempotency: IdempotencyStore;
  logger: Logger;
}

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  const api = express.Router();
  const rateLimiter = new RateLimiter(deps.config.rateLimit);
  api.use(identifyCaller(deps.services.apiKeys), rateLimiter.middleware());
  const openApiDocument = buildOpenApiDocument(ROUTES, { version: API_VERSION });
  api.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });
  mountRoutes(api, ROUTES, deps);
  app.use(API_PREFIX, api);

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
