import { rmSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { loadConfig } from '../server/src/config.ts';
import { spawnServer } from '../tooling/api/server-process.ts';
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

export interface RecoveryResult {
	backlog: number;
	rounds: number;
	/** How long `POST …/recover` took to answer, median of the rounds. */
	answerMs: number;
	/** Deliveries a second while the backlog drained, median of the rounds. */
	deliveriesPerSecond: number;
	/** What the receiver's answer time and WEBHOOK_ENDPOINT_CONCURRENCY allow: concurrency ÷ answer time. */
	endpointPacePerSecond: number;
	/** The most deliveries the receiver ever had unanswered at once. */
	mostInFlight: number;
	/**
	 * p99 of the other requests (medians of the rounds): while nothing was delivered, while the
	 * backlog drained as deliveries queued (after n8n was back, say), and while it was recovered.
	 */
	idleP99Ms: number;
	drainP99Ms: number;
	recoveryP99Ms: number;
	/** A change's delivery to another endpoint of the organization while the backlog drained: p50 / max. */
	otherEndpointP50Ms: number;
	otherEndpointMaxMs: number;
}

/** Deliveries in flight to one endpoint, as the server has it by default. */
const ENDPOINT_CONCURRENCY = loadConfig({}).webhooks.endpointConcurrency;

/**
 * A large backlog to one endpoint while other requests go on at `ratePerSecond`. Contenders, in
 * interleaved rounds (which goes first rotates): the same load with nothing to deliver (idle); the
 * `backlog` deliveries queued and draining to a receiver that answers after `answerMs` (drain); and
 * the same deliveries given up (as after a day away) and recovered with one request (recovery).
 * Reported: the recover request's answer time, the drain's pace against the endpoint's (concurrency
 * ÷ answer time), and the other requests' p99 in each contender. Meanwhile a change is delivered to
 * a second endpoint every 200 ms, timed from the change to its arrival.
 */
export async function benchWebhookRecovery(options: {
	backlog: number;
	rounds: number;
	ratePerSecond: number;
	answerMs: number;
}): Promise<RecoveryResult> {
	const dir = tempDir('recovery');
	const databasePath = join(dir, 'db.sqlite');
	const boot = bootstrap(databasePath);
	const backlog = await startBacklogReceiver(options.answerMs);
	/** The other endpoint's latencies: kept during recovery rounds only. */
	const otherLatencies: number[] = [];
	const receiver = await startLatencyReceiver();
	const env = {
		DATABASE_PATH: databasePath,
		WEBHOOK_ALLOW_INSECURE_URLS: 'true',
		RATE_LIMIT_REQUESTS: '10000000',
	};
	try {
		// The backlog: one endpoint subscribed to session.created, `backlog` sessions created while the
		// server is stopped (through the API's own services, so each queues its delivery), all given up.
		let server = await spawnServer(env);
		const labs = await api(`${server.url}/labs`, boot.api_key, 'GET');
		const versions = await api(`${server.url}/labs/${labs[0].id}/versions`, boot.api_key, 'GET');
		const sessionId = (
			await api(`${server.url}/sessions`, boot.api_key, 'POST', {
				title: 'Read meanwhile',
				lab_version_id: versions[0].id,
				capacity: 10,
			})
		).id;
		const backlogHook = await api(
			`${server.url}/orgs/${boot.org.id}/webhooks`,
			boot.api_key,
			'POST',
			{
				url: `${backlog.url}/backlog`,
				event_types: ['session.created'],
			},
		);
		await api(`${server.url}/orgs/${boot.org.id}/webhooks`, boot.api_key, 'POST', {
			url: `${receiver.url}/other`,
			event_types: ['lab_version.created'],
		});
		await server.stop();
		seedSessions(databasePath, boot, options.backlog);
		const since = new Date(Date.now() - 60_000).toISOString();
		// Given up again before each round, by the bench's own connection while the server is idle.
		const setBacklog = (sql: string) => {
			const fixture = new BetterSqlite3(databasePath);
			fixture.pragma('busy_timeout = 5000');
			fixture.prepare(sql).run({ webhook: backlogHook.id, now: Date.now() });
			fixture.close();
		};
		const giveUp = () =>
			setBacklog(
				`UPDATE webhook_deliveries SET status = 'exhausted', next_attempt_at = NULL, claimed_until = NULL
         WHERE webhook_id = @webhook`,
			);
		/** Due now, as deliveries just queued are; the server learns of them with the next change for the endpoint. */
		const queueAgain = () =>
			setBacklog(
				`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = @now, claimed_until = NULL
         WHERE webhook_id = @webhook`,
			);
		giveUp();
		server = await spawnServer(env);

		const load = keepAliveApi(boot.api_key);
		/** The other requests, one every 1/rate s, until `until` resolves; their latencies. */
		const requestsMeanwhile = (until: Promise<unknown>) =>
			requestsAtRate(
				() => load.call(`${server.url}/sessions/${sessionId}`, 'GET'),
				options.ratePerSecond,
				until,
			);
		/** A change for the other endpoint every 200 ms until `until` resolves. */
		const changesForTheOtherEndpoint = (until: Promise<unknown>) =>
			repeatUntil(
				() => api(`${server.url}/labs/${labs[0].id}/versions`, boot.api_key, 'POST'),
				200,
				until,
			);

		const samples = {
			answerMs: [] as number[],
			perSecond: [] as number[],
			idle: [] as number[],
			drain: [] as number[],
			recovery: [] as number[],
		};
		let drainMs = 5_000;
		/** Until every delivery of the backlog has arrived since `arrivedBefore`. */
		const drainedSince = (arrivedBefore: number, count: number) =>
			eventually(() => backlog.arrivals() - arrivedBefore >= count, 'the backlog to drain', {
				timeoutMs: 600_000,
				intervalMs: 5,
			});
		// Every contender gets the same requests and changes; only what is delivered differs.
		const idleRound = async () => {
			receiver.into([]);
			const window = new Promise((resolve) => setTimeout(resolve, drainMs));
			const [latencies] = await Promise.all([
				requestsMeanwhile(window),
				changesForTheOtherEndpoint(window),
			]);
			samples.idle.push(percentile(latencies, 99));
		};
		/** `deliver` starts the backlog's deliveries and resolves once they have all arrived. */
		const deliveryRound = async (deliver: () => Promise<void>, p99s: number[]) => {
			receiver.into(otherLatencies);
			const started = Date.now();
			const delivered = deliver();
			const [latencies] = await Promise.all([
				requestsMeanwhile(delivered),
				changesForTheOtherEndpoint(delivered),
			]);
			drainMs = Date.now() - started;
			samples.perSecond.push(options.backlog / (drainMs / 1000));
			p99s.push(percentile(latencies, 99));
		};
		const drainRound = () => {
			queueAgain();
			return deliveryRound(async () => {
				const arrivedBefore = backlog.arrivals();
				// A change for the backlog's endpoint: its delivery wakes the outbox, which finds them all due.
				await api(`${server.url}/sessions`, boot.api_key, 'POST', {
					title: 'Wakes the outbox',
					lab_version_id: versions[0].id,
					capacity: 10,
				});
				await drainedSince(arrivedBefore, options.backlog + 1);
			}, samples.drain).finally(giveUp);
		};
		const recoveryRound = () =>
			deliveryRound(async () => {
				const arrivedBefore = backlog.arrivals();
				const sent = performance.now();
				const answer = await api(
					`${server.url}/orgs/${boot.org.id}/webhooks/${backlogHook.id}/recover`,
					boot.api_key,
					'POST',
					{ since },
				);
				samples.answerMs.push(performance.now() - sent);
				if (answer.queued < options.backlog) throw new Error(`recovered ${answer.queued}`);
				await drainedSince(arrivedBefore, answer.queued);
			}, samples.recovery).finally(giveUp);
		// The first delivering round sets the window the idle rounds measure; which goes first rotates.
		const contenders = [recoveryRound, drainRound, idleRound];
		for (let round = 0; round < options.rounds; round++)
			for (let turn = 0; turn < contenders.length; turn++)
				await contenders[(round + turn) % contenders.length]();
		load.close();
		await server.stop();
		return {
			backlog: options.backlog,
			rounds: options.rounds,
			answerMs: median(samples.answerMs),
			deliveriesPerSecond: Math.round(median(samples.perSecond)),
			endpointPacePerSecond: Math.round((ENDPOINT_CONCURRENCY * 1000) / options.answerMs),
			mostInFlight: backlog.mostInFlight(),
			idleP99Ms: median(samples.idle),
			drainP99Ms: median(samples.drain),
			recoveryP99Ms: median(samples.recovery),
			otherEndpointP50Ms: percentile(otherLatencies, 50),
			otherEndpointMaxMs: Math.max(...otherLatencies),
		};
	} finally {
		receiver.close();
		await backlog.stop();
		rmSync(dir, { recursive: true, force: true });
	}
}

/**
 * The backlog's endpoint, answering each delivery `answerMs` after it arrived, in a thread of its
 * own: its 700 or so requests a second stay out of the event loop that times the other requests.
 */
async function startBacklogReceiver(answerMs: number) {
	const counters = new Int32Array(new SharedArrayBuffer(3 * 4)); // in flight, most in flight, arrivals
	const worker = new Worker(
		`const { parentPort, workerData } = require('node:worker_threads');
		const counters = new Int32Array(workerData.counters);
		const server = require('node:http').createServer((req, res) => {
			req.resume();
			req.on('end', () => {
				const inFlight = Atomics.add(counters, 0, 1) + 1;
				if (inFlight > Atomics.load(counters, 1)) Atomics.store(counters, 1, inFlight);
				setTimeout(() => {
					Atomics.sub(counters, 0, 1);
					Atomics.add(counters, 2, 1);
					res.writeHead(204).end();
				}, workerData.answerMs);
			});
		});
		server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));`,
		{ eval: true, workerData: { counters: counters.buffer, answerMs } },
	);
	const port = await new Promise<number>((resolve) => worker.once('message', resolve));
	return {
		url: `http://127.0.0.1:${port}`,
		arrivals: () => Atomics.load(counters, 2),
		mostInFlight: () => Atomics.load(counters, 1),
		stop: () => worker.terminate(),
	};
}
