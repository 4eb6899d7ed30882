import { eventually } from '../../tooling/eventually.ts';
import {
	createServer,
	type IncomingHttpHeaders,
	type IncomingMessage,
	type Server,
	type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
	method: string;
	path: string;
	headers: IncomingHttpHeaders;
	body: string;
	receivedAt: number;
}

export interface Reply {
	status: number;
	body?: string;
	headers?: Record<string, string>;
	/** Wait this long before answering (to provoke a timeout). */
	delayMs?: number;
	/** Answer only once this settles: the test decides when an attempt in flight ends. */
	after?: Promise<unknown>;
}

/** A real HTTP endpoint on a free loopback port that records every delivery and answers as told. */
export class Receiver {
	readonly received: ReceivedDelivery[] = [];
	reply: (delivery: ReceivedDelivery) => Reply = () => ({ status: 204 });
	#server: Server;
	readonly #inFlight = new Map<string, number>();
	readonly #mostInFlight = new Map<string, number>();
	url = '';

	private constructor(server: Server) {
		this.#server = server;
	}

	static async start(): Promise<Receiver> {
		const receiver: Receiver = new Receiver(createServer((req, res) => receiver.#handle(req, res)));
		await new Promise<void>((resolve) => receiver.#server.listen(0, '127.0.0.1', resolve));
		receiver.url = `http://127.0.0.1:${(receiver.#server.address() as AddressInfo).port}`;
		return receiver;
	}

	at(path: string): ReceivedDelivery[] {
		return this.received.filter((delivery) => delivery.path === path);
	}

	/** The most requests to `path` that were ever unanswered at once. */
	mostInFlight(path: string): number {
		return this.#mostInFlight.get(path) ?? 0;
	}

	async waitFor(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
		await eventually(
			predicate,
			`the receiver's condition (${this.received.length} received so far)`,
			{ timeoutMs },
		);
	}

	async stop(): Promise<void> {
		this.#server.closeAllConnections();
		await new Promise((resolve) => this.#server.close(resolve));
	}

	#handle(req: IncomingMessage, res: ServerResponse): void {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const delivery = {
				method: req.method ?? 'GET',
				path: req.url ?? '/',
				headers: req.headers,
				body: Buffer.concat(chunks).toString('utf8'),
				receivedAt: Date.now(),
			};
			this.received.push(delivery);
			const inFlight = (this.#inFlight.get(delivery.path) ?? 0) + 1;
			this.#inFlight.set(delivery.path, inFlight);
			this.#mostInFlight.set(
				delivery.path,
				Math.max(inFlight, this.#mostInFlight.get(delivery.path) ?? 0),
			);
			res.on('close', () =>
				this.#inFlight.set(delivery.path, this.#inFlight.get(delivery.path)! - 1),
			);
			const reply = this.reply(delivery);
			const answer = () => {
				if (res.destroyed) return;
				res.writeHead(reply.status, reply.headers);
				res.end(reply.body);
			};
			if (reply.after) void reply.after.finally(answer);
			else if (reply.delayMs) {
				// Let go once the connection is gone (its client gave up, or `stop` closed it), so that
				// no timer is left to fire after the test.
				const timer = setTimeout(answer, reply.delayMs);
				res.once('close', () => clearTimeout(timer));
			} else answer();
		});
	}
}
