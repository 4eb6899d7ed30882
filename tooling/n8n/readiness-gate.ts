import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A readiness gate on loopback in front of one n8n process. */
export interface ReadinessGate {
	url: string;
	/** Requests answered `503` because n8n was not ready. */
	readonly turnedAway: number;
	/** Requests forwarded to n8n. */
	readonly letIn: number;
	/**
	 * False: every request is forwarded, ready or not, as when n8n is reached directly (`npx n8n`,
	 * `docker run`, a proxy without a health check).
	 */
	checking: boolean;
	stop(): Promise<void>;
}

/**
 * What a load balancer's health check or a Kubernetes readiness probe does in front of n8n: forwards
 * a request to `target` only while `isReady()` holds, and answers `503` otherwise (`502` when the
 * target cannot be reached). n8n needs it in front of its webhooks: while it checks its database
 * migrations at start, n8n answers every request — a webhook delivery too — with `200 n8n is
 * starting up. Please wait` (n8n 2.41.1, abstract-server.ts), which a sender takes as delivered.
 */
export async function startReadinessGate(
	target: string,
	isReady: () => Promise<boolean>,
): Promise<ReadinessGate> {
	const upstream = new URL(target);
	let turnedAway = 0;
	let letIn = 0;
	const gate = { checking: true };
	const server = createServer(async (req, res) => {
		if (gate.checking && !(await isReady().catch(() => false))) {
			turnedAway++;
			req.resume();
			res.writeHead(503, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ status: 'n8n is not ready' }));
			return;
		}
		letIn++;
		const forwarded = request(
			{
				host: upstream.hostname,
				port: upstream.port,
				method: req.method,
				path: req.url,
				headers: req.headers,
			},
			(answer) => {
				res.writeHead(answer.statusCode!, answer.headers);
				answer.pipe(res);
			},
		);
		forwarded.on('error', () => {
			if (res.headersSent) res.destroy();
			else res.writeHead(502).end();
		});
		req.pipe(forwarded);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		get checking() {
			return gate.checking;
		},
		set checking(checking: boolean) {
			gate.checking = checking;
		},
		get turnedAway() {
			return turnedAway;
		},
		get letIn() {
			return letIn;
		},
		async stop() {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}
