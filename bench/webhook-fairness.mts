import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { bootstrapOrg, spawnServer } from '../tooling/api/server-process.ts';
import {
	api,
	bootstrap,
	eventually,
	keepAliveApi,
	median,
	percentile,
	repeatUntil,
	requestsAtRate,
	seedSessions,
	startLatencyReceiver,
	tempDir,
} from './support.mts';

export interface FairnessResult {
	stuckEndpoints: number;
	recovered: number;
	rounds: number;
	/** The recover requests' answer time, the slowest of a round (median of the rounds). */
	recoverAnswerMs: number;
	/** Another organization's deliveries, change → arrival: p50 and p99, idle and during a recovery. */
	other: { idleP50Ms: number; idleP99Ms: number; recoveryP50Ms: number; recoveryP99Ms: number };
	/** Every other request's p99, idle and during a recovery (medians of the rounds). */
	requests: { idleP99Ms: number; recoveryP99Ms: number };
}

/**
 * One organization whose `stuckEndpoints` receivers never answer (each attempt waits for the
 * delivery timeout) recovers `recovered` given-up deliveries at once, one request per endpoint.
 * Meanwhile another organization makes a change every 100 ms, delivered to its one fast endpoint,
 * and other requests go on at `ratePerSecond`. Contenders, in interleaved rounds of `windowMs`: the
 * same load with nothing recovered (idle), and with the recovery. Reported: the other organization's
 * delivery latency and the other requests' p99 in both.
 */
export async function benchWebhookFairness(options: {
	stuckEndpoints: number;
	recovered: number;
	rounds: number;
	windowMs: number;
	ratePerSecond: number;
}): Promise<FairnessResult> {
	const dir = tempDir('fairness');
	const databasePath = join(dir, 'db.sqlite');
	const stuck = bootstrap(databasePath);
	const other = bootstrapOrg(databasePath, 'Other Org', 'other@bench.test');
	const hanging = await startHangingReceiver();
	const fast = await startLatencyReceiver();
	const env = {
		DATABASE_PATH: databasePath,
		WEBHOOK_ALLOW_INSECURE_URLS: 'true',
		RATE_LIMIT_REQUESTS: '10000000',
		WEBHOOK_TIMEOUT_MS: '3000',
	};
	try {
		let server = await spawnServer(env);
		const hooks: string[] = [];
		for (let n = 0; n < options.stuckEndpoints; n++)
			hooks.push(
				(
					await api(`${server.url}/orgs/${stuck.org.id}/webhooks`, stuck.api_key, 'POST', {
						url: `${hanging.url}/stuck-${n}`,
						event_types: ['session.created'],
					})
				).id,
			);
		await api(`${server.url}/orgs/${other.org.id}/webhooks`, other.api_key, 'POST', {
			url: `${fast.url}/other`,
			event_types: ['lab_version.created'],
		});
		const otherLab = (await api(`${server.url}/labs`, other.api_key, 'GET'))[0].id;
		const labs = await api(`${server.url}/labs`, stuck.api_key, 'GET');
		const versions = await api(`${server.url}/labs/${labs[0].id}/versions`, stuck.api_key, 'GET');
		const sessionId = (
			await api(`${server.url}/sessions`, stuck.api_key, 'POST', {
				title: 'Read meanwhile',
				lab_version_id: versions[0].id,
				capacity: 10,
			})
		).id;
		await server.stop();
		// Each session a delivery to every stuck endpoint: `recovered` in all.
		seedSessions(databasePath, stuck, Math.ceil(options.recovered / options.stuckEndpoints));
		const since = new Date(Date.now() - 60_000).toISOString();
		/** Gives every delivery of the stuck organization up again and ends its recoveries. */
		const giveUp = () => {
			const fixture = new BetterSqlite3(databasePath);
			fixture.pragma('busy_timeout = 5000');
			fixture.exec('DELETE FROM webhook_recoveries');
			fixture
				.prepare(
					`UPDATE webhook_deliveries SET status = 'exhausted', next_attempt_at = NULL, claimed_until = NULL,
             revision = revision + 1
           WHERE webhook_id IN (SELECT id FROM webhooks WHERE org_id = ?)`,
				)
				.run(stuck.org.id);
			fixture.close();
		};
		giveUp();
		server = await spawnServer(env);

		const load = keepAliveApi(stuck.api_key);
		const requestsMeanwhile = (ends: Promise<unknown>) =>
			requestsAtRate(
				() => load.call(`${server.url}/sessions/${sessionId}`, 'GET'),
				options.ratePerSecond,
				ends,
			);
		/** A change of the other organization every 100 ms until the window ends. */
		const otherChanges = (ends: Promise<unknown>) =>
			repeatUntil(
				() => api(`${server.url}/labs/${otherLab}/versions`, other.api_key, 'POST'),
				100,
				ends,
			);
		const samples = {
			answerMs: [] as number[],
			idleRequests: [] as number[],
			recoveryRequests: [] as number[],
			idleOther: [] as number[],
			recoveryOther: [] as number[],
		};
		const round = async (recovering: boolean) => {
			fast.into(recovering ? samples.recoveryOther : samples.idleOther);
			const window = new Promise((resolve) => setTimeout(resolve, options.windowMs));
			const recovery = recovering
				? (async () => {
						const answers = await Promise.all(
							hooks.map(async (hook) => {
								const sent = performance.now();
								const answer = await api(
									`${server.url}/orgs/${stuck.org.id}/webhooks/${hook}/recover`,
									stuck.api_key,
									'POST',
									{ since },
								);
								if (answer.queued === 0) throw new Error('nothing recovered');
								return performance.now() - sent;
							}),
						);
						samples.answerMs.push(Math.max(...answers));
					})()
				: Promise.resolve();
			const [latencies] = await Promise.all([
				requestsMeanwhile(window),
				otherChanges(window),
				recovery,
			]);
			(recovering ? samples.recoveryRequests : samples.idleRequests).push(
				percentile(latencies, 99),
			);
			if (recovering) {
				giveUp();
				// The stuck sends end at once; the next round starts with none in flight.
				hanging.dropAll();
				await eventually(() => hanging.open() === 0, 'the stuck sends to end', {
					timeoutMs: 30_000,
				});
			}
			// The other organization's last deliveries arrive before the next round.
			await new Promise((resolve) => setTimeout(resolve, 500));
		};
		for (let n = 0; n < options.rounds; n++) {
			await round(n % 2 === 0);
			await round(n % 2 !== 0);
		}
		load.close();
		await server.stop();
		return {
			stuckEndpoints: options.stuckEndpoints,
			recovered: Math.ceil(options.recovered / options.stuckEndpoints) * options.stuckEndpoints,
			rounds: options.rounds,
			recoverAnswerMs: median(samples.answerMs),
			other: {
				idleP50Ms: percentile(samples.idleOther, 50),
				idleP99Ms: percentile(samples.idleOther, 99),
				recoveryP50Ms: percentile(samples.recoveryOther, 50),
				recoveryP99Ms: percentile(samples.recoveryOther, 99),
			},
			requests: {
				idleP99Ms: median(samples.idleRequests),
				recoveryP99Ms: median(samples.recoveryRequests),
			},
		};
	} finally {
		fast.close();
		await hanging.stop();
		rmSync(dir, { recursive: true, force: true });
	}
}

/** A receiver that reads each delivery and never answers; `dropAll` cuts every connection. */
async function startHangingReceiver() {
	const sockets = new Set<Socket>();
	const server: Server = createServer((req) => req.resume());
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		open: () => sockets.size,
		dropAll: () => {
			for (const socket of sockets) socket.destroy();
		},
		stop: () => {
			for (const socket of sockets) socket.destroy();
			return new Promise((resolve) => server.close(resolve));
		},
	};
}
