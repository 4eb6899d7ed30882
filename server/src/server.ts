import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { API_PREFIX, createApp } from './app.ts';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/connection.ts';
import type { Logger } from './http/error-handler.ts';
import { IdempotencyStore } from './http/idempotency.ts';
import { createRepositories } from './repositories/index.ts';
import { createServices, type Services } from './services/index.ts';
import { WebhookDispatcher } from './webhooks/dispatcher.ts';

const HOUR_MS = 60 * 60 * 1000;
const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningServer {
  /** Base URL of the API, e.g. http://127.0.0.1:3000/api/v1 */
  url: string;
  port: number;
  db: Database;
  services: Services;
  /** Stops accepting connections, lets in-flight requests and webhook sends finish, closes the database. */
  close(): Promise<void>;
}

export const consoleLogger: Logger = {
  info: (message) => console.log(message),
  error: (message, error) => console.error(message, error instanceof Error ? error.stack : (error ?? '')),
};

/**
 * Requests Node's HTTP parser refuses before Express sees them (oversized headers, malformed
 * request lines) still get the error envelope rather than a bare status line — a 400
 * `validation_failed`, the status that code always has.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const body = JSON.stringify({
    error: { code: 'validation_failed', message: tooLarge ? 'The request headers are too large.' : 'The request is not valid HTTP.' },
  });
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export async function startServer(config: Config, logger: Logger = consoleLogger): Promise<RunningServer> {
  const db = openDatabase(config.databasePath);
  const repos = createRepositories(db);
  const services = createServices(db, { allowInsecureWebhookUrls: config.webhooks.allowInsecureUrls }, repos);
  const idempotency = new IdempotencyStore(db, repos.idempotency);
  idempotency.purgeExpired();
  const purge = setInterval(() => idempotency.purgeExpired(), HOUR_MS);
  purge.unref();

  const dispatcher = new WebhookDispatcher(db, repos, config.webhooks, logger);
  services.events.onDeliveriesQueued(() => dispatcher.wake());
  dispatcher.start();

  const app = createApp({ config, db, repos, services, idempotency, logger });
  let server: Server;
  try {
    server = await new Promise<Server>((resolve, reject) => {
      const listening = app.listen(config.port, config.host, (error?: Error) => (error ? reject(error) : resolve(listening)));
    });
  } catch (error) {
    clearInterval(purge);
    await dispatcher.stop();
    db.close();
    throw error;
  }
  server.on('clientError', answerClientError);
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      clearInterval(purge);
      const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      force.unref();
      server.close(async () => {
        clearTimeout(force);
        await dispatcher.stop();
        db.close();
        resolve();
      });
      server.closeIdleConnections();
    });
    return closing;
  };

  return { url: `http://${host}:${port}${API_PREFIX}`, port, db, services, close };
}
