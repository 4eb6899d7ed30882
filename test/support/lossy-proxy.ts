import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedExchange {
	method: string;
	path: string;
	status: number | null;
	idempotencyKey?: string;
	/** The server answered with a stored response (`Idempotent-Replayed: true`). */
	replayed?: boolean;
	/** The answer was lost on purpose: the client saw the connection drop. */
	lost?: boolean;
	/** When the request arrived and when its answer did (performance.now() of this process). */
	sentAt: number;
	answeredAt?: number;
	/** Retry-After of a 429, seconds. */
	retryAfter?: number;
}

/**
 * An HTTP proxy in front of the real server that can lose responses: the request reaches the
 * server and is processed, but the client's connection is cut before the answer arrives — the
 * network failure that makes retried creates dangerous. Records every exchange.
 */
export class LossyProxy {
	readonly exchanges: ProxiedExchange[] = [];
	/** How many more responses to matching requests to lose. */
	losses = 0;
	lose: (req: IncomingMessage) => boolean = () => false;
	/** Requests for which the server seems down: the connection is cut before anything is forwarded. */
	refuse: (req: IncomingMessage) => boolean = () => false;
	url = '';
	#server: Server;

	private constructor(target: URL) {
		this.#server = createServer((req, res) => {
			const exchange: ProxiedExchange = {
				method: req.method!,
				path: req.url!,
				status: null,
				idempotencyKey: req.headers['idempotency-key'] as string | undefined,
				sentAt: performance.now(),
			};
			this.exchanges.push(exchange);
			if (this.refuse(req)) {
				exchange.lost = true;
				req.socket.destroy();
				return;
			}
			const drop = this.losses > 0 && this.lose(req);
			if (drop) this.losses--;
			exchange.lost = drop;
			const upstream = request(
				{
					host: target.hostname,
					port: target.port,
					method: req.method,
					path: req.url,
					headers: req.headers,
				},
				(answer) => {
					exchange.status = answer.statusCode!;
					exchange.answeredAt = performance.now();
					if (answer.headers['retry-after'])
						exchange.retryAfter = Number(answer.headers['retry-after']);
					exchange.replayed = answer.headers['idempotent-replayed'] === 'true';
					if (drop) {
						answer.resume();
						answer.on('end', () => req.socket.destroy());
						return;
					}
					res.writeHead(answer.statusCode!, answer.headers);
					answer.pipe(res);
				},
			);
			upstream.on('error', () => res.destroy());
			req.pipe(upstream);
		});
	}

	/** Proxies to the origin of `targetBaseUrl`; `url` keeps the base URL's path. */
	static async start(targetBaseUrl: string): Promise<LossyProxy> {
		const target = new URL(targetBaseUrl);
		const proxy = new LossyProxy(target);
		await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
		proxy.url = `http://127.0.0.1:${(proxy.#server.address() as AddressInfo).port}${target.pathname}`;
		return proxy;
	}

	async stop(): Promise<void> {
		this.#server.closeAllConnections();
		await new Promise((resolve) => this.#server.close(resolve));
	}
}
