import { rmSync } from 'node:fs';
import { join } from 'node:path';
import {
	api,
	bootstrap,
	percentile,
	seedSessions,
	startReceiver,
	tempDir,
	eventually,
} from './support.mts';
import { spawnServer } from '../tooling/api/server-process.ts';

export interface DeliveryResult {
	endpoints: number;
	deliveries: number;
	deliveriesPerSecond: number;
	latencyP50Ms: number;
	latencyP99Ms: number;
}

/**
 * Webhook delivery to a local receiver through `endpoints` subscribed endpoints:
 * - throughput: a backlog of `backlog` changes is committed while the server is stopped (through the
 *   same domain services the API uses, so each change queues its deliveries), then the server starts
 *   and drains the outbox; deliveries per second from first to last arrival;
 * - latency: `steadyChanges` session creations through the API at about `ratePerSecond`; the time from
 *   each change (its event's occurred_at) to its arrival at the receiver.
 */
export async function benchWebhookDelivery(options: {
	endpoints: number;
	backlog: number;
	steadyChanges: number;
	ratePerSecond: number;
}): Promise<DeliveryResult> {
	const dir = tempDir('webhooks');
	const databasePath = join(dir, 'db.sqlite');
	const boot = bootstrap(databasePath);
	const receiver = await startReceiver();
	const env = {
		DATABASE_PATH: databasePath,
		WEBHOOK_ALLOW_INSECURE_URLS: 'true',
		RATE_LIMIT_REQUESTS: '10000000',
	};
	try {
		let server = await spawnServer(env);
		for (let i = 0; i < options.endpoints; i++) {
			await api(`${server.url}/orgs/${boot.org.id}/webhooks`, boot.api_key, 'POST', {
				url: `${receiver.url}/endpoint-${i}`,
				event_types: ['session.created'],
			});
		}
		await server.stop();
		const { versionId } = seedSessions(databasePath, boot, options.backlog);

		const backlogDeliveries = options.backlog * options.endpoints;
		server = await spawnServer(env);
		await eventually(() => receiver.arrivals.length >= backlogDeliveries, 'the backlog to drain', {
			timeoutMs: 600_000,
			intervalMs: 5,
		});
		const drained = receiver.arrivals.slice(0, backlogDeliveries);
		const drainSeconds = (drained.at(-1)!.receivedAt - drained[0].receivedAt) / 1000;
		receiver.arrivals.length = 0;

		const intervalMs = 1000 / options.ratePerSecond;
		const started = Date.now();
		const requests: Promise<unknown>[] = [];
		for (let i = 0; i < options.steadyChanges; i++) {
			const due = started + i * intervalMs;
			if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
			requests.push(
				api(`${server.url}/sessions`, boot.api_key, 'POST', {
					title: `Steady ${i}`,
					lab_version_id: versionId,
					capacity: 10,
				}),
			);
		}
		await Promise.all(requests);
		await eventually(
			() => receiver.arrivals.length >= options.steadyChanges * options.endpoints,
			'steady deliveries',
			{ timeoutMs: 120_000, intervalMs: 5 },
		);
		const latencies = receiver.arrivals.map((arrival) => arrival.receivedAt - arrival.occurredAt);
		await server.stop();
		return {
			endpoints: options.endpoints,
			deliveries: backlogDeliveries,
			deliveriesPerSecond: Math.round((backlogDeliveries - 1) / drainSeconds),
			latencyP50Ms: percentile(latencies, 50),
			latencyP99Ms: percentile(latencies, 99),
		};
	} finally {
		receiver.server.close();
		rmSync(dir, { recursive: true, force: true });
	}
}
