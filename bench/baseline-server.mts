// The baseline of the throughput benchmark: a bare node:http server doing the same work per request
// as the API — the same API-key lookup and the same SQLite statements (the API's own services and
// repositories) — without Express, zod validation, rate limiting, idempotency or the error envelope.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openDatabase } from '../server/src/db/connection.ts';
import { createServices } from '../server/src/services/index.ts';
import { actorOf } from '../server/src/core/actor.ts';

const db = openDatabase(process.env.DATABASE_PATH!);
const services = createServices(db, {
	allowInsecureWebhookUrls: true,
});

const server = createServer((req, res) => {
	const send = (status: number, body?: unknown) => {
		res.writeHead(status, { 'content-type': 'application/json' });
		res.end(body === undefined ? undefined : JSON.stringify(body));
	};
	const caller = services.apiKeys.authenticate(
		/^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '',
	);
	if (!caller) return send(401);
	const url = new URL(req.url!, 'http://localhost');
	if (req.method === 'GET' && url.pathname === '/api/v1/me')
		return send(200, { user: caller.user, org: caller.org, role: caller.role });
	if (req.method === 'GET' && url.pathname === '/api/v1/sessions') {
		return send(
			200,
			services.sessions.list(caller.org.id, { limit: Number(url.searchParams.get('limit') ?? 100) })
				.items,
		);
	}
	const session = /^\/api\/v1\/sessions\/([0-9a-f-]{36})$/.exec(url.pathname);
	if (req.method === 'GET' && session)
		return send(200, services.sessions.get(caller.org.id, session[1]));
	if (req.method === 'POST' && url.pathname === '/api/v1/sessions') {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () =>
			send(
				201,
				services.sessions.create(actorOf(caller), JSON.parse(Buffer.concat(chunks).toString())),
			),
		);
		return;
	}
	send(404);
});

server.listen(0, '127.0.0.1', () => {
	console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
