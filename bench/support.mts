import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { Agent, createServer, request, type Server } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { openDatabase } from '../server/src/db/connection.ts';
import { createServices } from '../server/src/services/index.ts';
import { bootstrapOrg, type Bootstrapped } from '../tooling/api/server-process.ts';

export { eventually } from '../tooling/eventually.ts';
export { ROOT } from '../tooling/root.ts';

/**
 * `--smoke`: the benchmark end to end in seconds, at sizes too small for its figures to mean
 * anything — CI runs every benchmark so, to see the day one breaks. BENCH_SMOKE=1 passes it on to
 * the benchmarks that run through jest.
 */
export const SMOKE = process.argv.includes('--smoke') || process.env.BENCH_SMOKE === '1';

/**
 * Whether benchmarks can put processes on CPUs of their own (`pinProcess`): taskset is Linux's, and
 * one CPU leaves nothing to split. Read once, at load: availableParallelism() follows this process's
 * CPUs, so that once pinned to one it answers 1.
 */
export const CAN_PIN = process.platform === 'linux' && availableParallelism() >= 2;

/**
 * Puts the process `pid` on the CPUs `cpus` (a list as taskset reads it: `0`, `0-1`): all its
 * threads, or with `threads: 'main'` its main thread only. A thread it starts later gets the CPUs
 * of the thread that starts it.
 */
export function pinProcess(
	pid: number,
	cpus: number | string,
	threads: 'all' | 'main' = 'all',
): void {
	execFileSync('taskset', [
		...(threads === 'all' ? ['--all-tasks'] : []),
		'--cpu-list',
		'--pid',
		String(cpus),
		String(pid),
	]);
}

/** The CPUs the process `pid` runs on now, as a list that `pinProcess` takes. */
export function cpusOf(pid: number): string {
	const answer = execFileSync('taskset', ['--cpu-list', '--pid', String(pid)], {
		encoding: 'utf8',
	});
	return answer.slice(answer.lastIndexOf(':') + 1).trim();
}

export function tempDir(name: string): string {
	return mkdtempSync(join(tmpdir(), `traininglab-bench-${name}-`));
}

/** The bench organization (bootstrap --demo) in the database at `databasePath`. */
export function bootstrap(databasePath: string): Bootstrapped {
	return bootstrapOrg(databasePath, 'Bench Org', 'bench@bench.test');
}

// The benchmark reads API answers loosely; their shapes are checked by the test suites.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function api(url: string, key: string, method: string, body?: unknown): Promise<any> {
	const response = await fetch(url, {
		method,
		headers: {
			authorization: `Bearer ${key}`,
			...(body ? { 'content-type': 'application/json' } : {}),
		},
		body: body ? JSON.stringify(body) : undefined,
	});
	if (!response.ok)
		throw new Error(`${method} ${url} → ${response.status} ${await response.text()}`);
	return response.status === 204 ? undefined : response.json();
}

/**
 * `api` over node:http with a keep-alive agent, for a load generator that shares the machine with the
 * server it measures: fetch cost 310–770 µs of CPU per request here, node:http 120–270 µs (client and
 * server in one process, 3,000 sequential POSTs, three rounds), and what the client spends is added
 * to every latency it records and taken from the cores the server runs on.
 */
export function keepAliveApi(key: string) {
	const agent = new Agent({ keepAlive: true });
	/**
	 * Resolves with the answer's body as text: parsing it is the caller's work, not the request's.
	 * A request sent on a kept connection that the server had just closed (its idle timer and ours
	 * crossed on a loaded machine) is reset before any answer: the server never read it, and it is
	 * sent again, as Node's documentation advises (`request.reusedSocket`).
	 */
	const call = (url: string, method: string, body?: unknown): Promise<string> =>
		new Promise((resolve, reject) => {
			const payload = body === undefined ? undefined : JSON.stringify(body);
			const sent = request(
				url,
				{
					method,
					agent,
					headers: {
						authorization: `Bearer ${key}`,
						...(payload ? { 'content-type': 'application/json' } : {}),
					},
				},
				(response) => {
					const chunks: Buffer[] = [];
					response.on('data', (chunk: Buffer) => chunks.push(chunk));
					response.on('error', reject);
					response.on('end', () => {
						const text = Buffer.concat(chunks).toString();
						const status = response.statusCode!;
						if (status < 200 || status > 299)
							reject(new Error(`${method} ${url} → ${status} ${text}`));
						else resolve(text);
					});
				},
			);
			sent.on('error', (error: NodeJS.ErrnoException) => {
				if (sent.reusedSocket && error.code === 'ECONNRESET')
					call(url, method, body).then(resolve, reject);
				else reject(error);
			});
			sent.end(payload);
		});
	return { call, close: () => agent.destroy() };
}

export interface Arrival {
	eventId: string;
	occurredAt: number;
	receivedAt: number;
}

/**
 * A webhook receiver that answers 204 at once and counts the events; it also records when each one
 * arrived unless `recordArrivals` is false (a long run that needs only the count, and no growing heap
 * in the process that measures latency).
 */
export async function startReceiver({ recordArrivals = true } = {}): Promise<{
	url: string;
	arrivals: Arrival[];
	received: () => number;
	server: Server;
}> {
	const arrivals: Arrival[] = [];
	let received = 0;
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk) => {
			if (recordArrivals) chunks.push(chunk);
		});
		req.on('end', () => {
			received++;
			if (recordArrivals) {
				const receivedAt = Date.now();
				const event = JSON.parse(Buffer.concat(chunks).toString());
				arrivals.push({
					eventId: event.id,
					occurredAt: Date.parse(event.occurred_at),
					receivedAt,
				});
			}
			res.writeHead(204).end();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		arrivals,
		received: () => received,
		server,
	};
}

/**
 * A receiver that times each delivery from its event (`occurred_at`) to its arrival, into the
 * array `sink` holds when it arrives, and answers 204.
 */
export async function startLatencyReceiver() {
	let sink: number[] = [];
	const server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const event = JSON.parse(Buffer.concat(chunks).toString()) as { occurred_at: string };
			sink.push(Date.now() - Date.parse(event.occurred_at));
			res.writeHead(204).end();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		into: (latencies: number[]) => (sink = latencies),
		close: () => server.close(),
	};
}

/**
 * Sends `request` at a steady `ratePerSecond` (whatever the answers take) until `until` resolves;
 * returns each request's latency, ms.
 */
export async function requestsAtRate(
	request: () => Promise<unknown>,
	ratePerSecond: number,
	until: Promise<unknown>,
): Promise<number[]> {
	const latencies: number[] = [];
	let done = false;
	void until.then(() => (done = true));
	const started = Date.now();
	const pending: Promise<void>[] = [];
	for (let i = 0; !done; i++) {
		const wait = started + (i * 1000) / ratePerSecond - Date.now();
		if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
		const sent = performance.now();
		const answered = request().then(() => void latencies.push(performance.now() - sent));
		// Failed, it fails the whole run below, not the process now (an unhandled rejection).
		answered.catch(() => undefined);
		pending.push(answered);
	}
	await Promise.all(pending);
	return latencies;
}

/** Runs `action`, then waits `pauseMs`, again and again until `until` resolves. */
export async function repeatUntil(
	action: () => Promise<unknown>,
	pauseMs: number,
	until: Promise<unknown>,
): Promise<void> {
	let done = false;
	void until.then(() => (done = true));
	while (!done) {
		await action();
		await new Promise((resolve) => setTimeout(resolve, pauseMs));
	}
}

/** The nearest-rank percentile: the smallest value with at least `p` % of the values at or below it. */
export function percentile(values: number[], p: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** The middle value; with an even count, the mean of the two middle ones. */
export function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = sorted.length >> 1;
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The body of the benchmarks' `POST /sessions`: a session of the lab version `versionId`. */
export function loadSession(versionId: string) {
	return { title: 'Load', lab_version_id: versionId, capacity: 20 };
}

/** Seeds `count` sessions (and their session.created events) through the domain services. */
export function seedSessions(
	databasePath: string,
	boot: { org: { id: string }; user: { id: string; email: string } },
	count: number,
): { versionId: string; sessionIds: string[] } {
	const db = openDatabase(databasePath);
	const services = createServices(db, {
		allowInsecureWebhookUrls: true,
	});
	const actor = adminOf(boot);
	const lab = services.labs.list(boot.org.id, { limit: 1 }).items[0];
	const versionId = services.labs.listVersions(boot.org.id, lab.id, { limit: 1 }).items[0].id;
	const sessionIds: string[] = [];
	db.transaction(() => {
		for (let i = 0; i < count; i++)
			sessionIds.push(
				services.sessions.create(actor, {
					title: `Seed ${i}`,
					lab_version_id: versionId,
					capacity: 20,
				}).id,
			);
	})();
	db.close();
	return { versionId, sessionIds };
}

/** Points the webhook endpoint `webhookId` of the bench organization at `url`. */
export function pointEndpoint(
	databasePath: string,
	boot: { org: { id: string }; user: { id: string; email: string } },
	webhookId: string,
	url: string,
): void {
	const db = openDatabase(databasePath);
	createServices(db, { allowInsecureWebhookUrls: true }).webhookEndpoints.update(
		adminOf(boot),
		webhookId,
		{ url },
	);
	db.close();
}

/** The bench organization's admin, as the domain services take an actor. */
function adminOf(boot: { org: { id: string }; user: { id: string; email: string } }) {
	return {
		orgId: boot.org.id,
		userId: boot.user.id,
		email: boot.user.email,
		role: 'admin' as const,
	};
}
