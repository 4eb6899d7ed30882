import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, type EventuallyOptions } from '../eventually.ts';
import { freePort, n8nRuntime, spawnLogged, tail, type Process } from '../processes.ts';
import type { N8nInstall } from './install.ts';
import { PINS, STARTED_LOG_LINE, type N8nPin } from './pins.ts';
import { startReadinessGate, type ReadinessGate } from './readiness-gate.ts';

/**
 * How the end-to-end suite waits (with `eventually`): every 100 ms; a probe that throws counts as
 * "not yet" (n8n or a service still starting) unless n8n has exited; a timeout shows `state()` (what
 * the wait last saw), then the end of `log`.
 */
export function patiently(
	timeoutMs: number,
	log?: string,
	state?: () => string,
): EventuallyOptions {
	return {
		timeoutMs,
		intervalMs: 100,
		retryErrors: (error) => !error.message.startsWith('n8n exited'),
		explain:
			state || log
				? () => [state?.(), log && tail(log)].filter((part) => part !== undefined).join('\n')
				: undefined,
	};
}

/** The owner account the harness (and `npm run dev`) gives every n8n it starts: loopback only. */
export const OWNER = {
	email: 'owner@traininglab.test',
	password: 'Training-Lab-Owner-1',
	firstName: 'Training Lab',
	lastName: 'Owner',
};

/** A running n8n, one process or several: where to drive it, where its webhooks are, its logs. */
export interface N8n {
	/** The main process: editor, REST API, public API. */
	url: string;
	pin: N8nPin;
	/** The n8n version, as its package says. */
	version: string;
	/**
	 * Where n8n's production webhooks are reached (the main process, or the webhook process in queue
	 * mode; through `gate` when there is one).
	 */
	webhookBase: string;
	/** The readiness gate in front of the webhooks, as a load balancer would be. */
	gate?: ReadinessGate;
	/** The main process's log, shown when a wait times out. */
	log: string;
	/** Logs of the worker processes (queue mode), by worker name. */
	workerLogs: Record<string, string>;
	/** Every n8n process by name: `main`, and in queue mode `worker-1`…, `webhook`. */
	processes: Record<string, N8nProcess>;
	/** One process: its SQLite database, which a test may replace while n8n is stopped. */
	sqliteFile?: string;
	/** Queue mode: the Redis executions are queued in. `restart()` brings it back empty. */
	redis?: { restart(): Promise<void> };
	stop(): Promise<void>;
	/** Kills every n8n process at once (SIGKILL); the database and the services stay. */
	kill(): Promise<void>;
	/** Starts every n8n process again as it was (main first), and waits until all are ready. */
	restart(): Promise<void>;
}

type N8nCommand = 'start' | 'worker' | 'webhook';

/** One n8n process, which a test may kill (SIGKILL) and start again as it was. */
export interface N8nProcess {
	log: string;
	/** The process's id (a new one after a restart). */
	readonly pid: number | undefined;
	stop(): Promise<void>;
	/**
	 * Kills the process at once (SIGKILL), as a crash or a pulled plug would. Its crash journal goes
	 * with it: that file's only effect is a 10 s sleep at the next start (n8n's `crash-journal.js`,
	 * 1.x and 2.x), which slows a crash loop and would only lengthen every downtime a test makes.
	 */
	kill(): Promise<void>;
	/** Starts it again with the same command, folder, ports and environment, and waits until it is ready. */
	restart(): Promise<void>;
	/** Whether the process has logged `text` since it was last started. */
	hasLogged(text: string): boolean;
}

/** Whether an n8n process's readiness URL says it is ready (starting up, n8n 1.x answers every path with a 200 of plain text). */
async function answersReady(readinessUrl: string): Promise<boolean> {
	const response = await fetch(readinessUrl);
	await response.arrayBuffer();
	return response.ok && /json/.test(response.headers.get('content-type') ?? '');
}

/** Starts one n8n process (`n8n start|worker|webhook`) in its own user folder and waits until it is ready. */
async function startN8nProcess(
	install: N8nInstall,
	command: N8nCommand,
	userFolder: string,
	env: NodeJS.ProcessEnv,
	readinessUrl: string,
	detached = false,
): Promise<N8nProcess> {
	mkdirSync(join(userFolder, 'tmp'), { recursive: true });
	const log = join(userFolder, 'n8n.log');
	const bin = join(install.dir, 'node_modules', 'n8n', 'bin', 'n8n');
	let current: Process;
	let logStart = 0;
	// What it has logged since it was started: once seen, not read again (the 1.x gate asks on every request).
	const seenInLog = new Set<string>();
	// Chosen once: a restart listens where the process listened before.
	const brokerPort = await freePort();
	const launch = async (append: boolean) => {
		logStart = append && existsSync(log) ? statSync(log).size : 0;
		seenInLog.clear();
		const n8n = spawnLogged(n8nRuntime(), [bin, command], {
			cwd: userFolder,
			env: {
				...process.env,
				// jest sets NODE_ENV=test, with which n8n exits at once without a word.
				NODE_ENV: 'production',
				N8N_USER_FOLDER: userFolder,
				TMPDIR: join(userFolder, 'tmp'),
				N8N_ENCRYPTION_KEY: 'traininglab-e2e-encryption-key',
				N8N_DIAGNOSTICS_ENABLED: 'false',
				N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
				N8N_TEMPLATES_ENABLED: 'false',
				N8N_PERSONALIZATION_ENABLED: 'false',
				N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
				N8N_RUNNERS_BROKER_PORT: String(brokerPort),
				N8N_LOG_LEVEL: 'info',
				...PINS[install.pin].env,
				...env,
			},
			log,
			append,
			detached,
		});
		current = n8n;
		try {
			await eventually(
				async () => {
					if (n8n.child.exitCode !== null)
						throw new Error(`n8n exited with code ${n8n.child.exitCode}:\n${tail(log)}`);
					return await answersReady(readinessUrl);
				},
				`n8n ${command} to be ready`,
				// A start takes 10 to 40 s here, but well over 120 s on a cold CI run whose machine also
				// installs n8n and starts a queue-mode setup (load average above 7 on two cores). One that
				// fails exits, which ends this wait at once.
				patiently(300_000, log),
			);
		} catch (error) {
			await n8n.stop();
			throw error;
		}
	};
	await launch(false);
	return {
		log,
		get pid() {
			return current.child.pid;
		},
		stop: () => current.stop(),
		async kill() {
			current.child.kill('SIGKILL');
			await current.stop();
			rmSync(join(userFolder, '.n8n', 'crash.journal'), { force: true });
		},
		restart: () => launch(true),
		hasLogged(text) {
			if (
				!seenInLog.has(text) &&
				readFileSync(log).subarray(logStart).toString('utf8').includes(text)
			)
				seenInLog.add(text);
			return seenInLog.has(text);
		},
	};
}

/** What the main process needs to serve the editor and APIs on `port`, with the owner set up where the environment can. */
function mainEnv(install: N8nInstall, port: number): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {
		...listenEnv(port),
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}/`,
		N8N_SECURE_COOKIE: 'false',
	};
	if (PINS[install.pin].owner !== 'environment') return env;
	const bcrypt = createRequire(join(install.dir, 'package.json'))('bcryptjs') as {
		hashSync(value: string, rounds: number): string;
	};
	return {
		...env,
		N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
		N8N_INSTANCE_OWNER_EMAIL: OWNER.email,
		N8N_INSTANCE_OWNER_FIRST_NAME: OWNER.firstName,
		N8N_INSTANCE_OWNER_LAST_NAME: OWNER.lastName,
		N8N_INSTANCE_OWNER_PASSWORD_HASH: bcrypt.hashSync(OWNER.password, 10),
	};
}

/** Starts the main process (`n8n start`) and sets the owner up where that is done over REST. */
async function startMain(
	install: N8nInstall,
	userFolder: string,
	env: NodeJS.ProcessEnv,
	port: number,
	detached = false,
): Promise<N8nProcess> {
	const url = `http://127.0.0.1:${port}`;
	const traits = PINS[install.pin];
	const main = await startN8nProcess(
		install,
		'start',
		userFolder,
		{ ...env, ...mainEnv(install, port) },
		`${url}${traits.readinessPath}`,
		detached,
	);
	// The owner is set up once; a user folder used before already has one (npm run dev).
	if (traits.owner === 'rest' && (await ownerNeeded(url))) {
		const response = await fetch(`${url}/rest/owner/setup`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(OWNER),
		});
		if (!response.ok) {
			await main.stop();
			throw new Error(`n8n owner setup → ${response.status}: ${await response.text()}`);
		}
	}
	return main;
}

/** Whether an n8n set up over REST still asks for its owner (its settings say so before the first login). */
async function ownerNeeded(url: string): Promise<boolean> {
	const settings = (await (await fetch(`${url}/rest/settings`)).json()) as {
		data: { userManagement: { showSetupOnFirstLoad?: boolean } };
	};
	return settings.data.userManagement.showSetupOnFirstLoad !== false;
}

function listenEnv(port: number): NodeJS.ProcessEnv {
	return {
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PORT: String(port),
		N8N_PROTOCOL: 'http',
	};
}

/**
 * One n8n process on SQLite, serving editor, APIs and webhooks, with its files in `userFolder`: on
 * `port` (a free one by default), with `env` added, in a process group of its own if `detached`;
 * with `readinessGate`, its webhooks are reached through a readiness gate, as behind a load balancer.
 */
export async function startN8n(
	install: N8nInstall,
	userFolder: string,
	options: {
		port?: number;
		env?: NodeJS.ProcessEnv;
		detached?: boolean;
		readinessGate?: boolean;
	} = {},
): Promise<N8n> {
	const port = options.port ?? (await freePort());
	const url = `http://127.0.0.1:${port}`;
	const { readinessPath, webhooksAfterStart } = PINS[install.pin];
	let n8n: N8nProcess | undefined;
	const gate = options.readinessGate
		? await startReadinessGate(
				url,
				async () =>
					(await answersReady(`${url}${readinessPath}`)) &&
					(!webhooksAfterStart || n8n?.hasLogged(STARTED_LOG_LINE) === true),
			)
		: undefined;
	const webhookBase = gate?.url ?? url;
	try {
		n8n = await startMain(
			install,
			userFolder,
			// WEBHOOK_URL, which both lines read (2.x also N8N_WEBHOOK_URL, 1.x only this).
			{ WEBHOOK_URL: `${webhookBase}/`, DB_TYPE: 'sqlite', ...options.env },
			port,
			options.detached,
		);
	} catch (error) {
		await gate?.stop();
		throw error;
	}
	const main = n8n;
	return {
		url,
		pin: install.pin,
		version: install.version,
		webhookBase,
		gate,
		log: main.log,
		workerLogs: {},
		processes: { main },
		sqliteFile: join(userFolder, '.n8n', 'database.sqlite'),
		async stop() {
			await main.stop();
			await gate?.stop();
		},
		kill: () => main.kill(),
		restart: () => main.restart(),
	};
}

/**
 * n8n scaled out in queue mode, each process in its own user folder (`<name>` below `root`, the
 * package installed by `installPackage`): main (editor, APIs, triggers and pollers), `workers` workers
 * running the executions from the Redis queue, and one webhook process receiving production
 * webhooks through a readiness gate (as behind a load balancer); PostgreSQL as the database.
 */
export async function startQueueN8n(
	install: N8nInstall,
	root: string,
	installPackage: (userFolder: string) => void,
	services: { postgresPort: number; redisPort: number },
	workers = 2,
): Promise<N8n> {
	const [mainPort, webhookPort] = [await freePort(), await freePort()];
	const url = `http://127.0.0.1:${mainPort}`;
	const webhookProcess = `http://127.0.0.1:${webhookPort}`;
	const gate = await startReadinessGate(webhookProcess, () =>
		answersReady(`${webhookProcess}/healthz/readiness`),
	);
	const webhookBase = gate.url;
	const shared: NodeJS.ProcessEnv = {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(services.redisPort),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(services.postgresPort),
		DB_POSTGRESDB_DATABASE: 'n8n',
		DB_POSTGRESDB_USER: 'n8n',
		WEBHOOK_URL: `${webhookBase}/`,
		// Keep finished jobs in Redis a while (n8n removes them at once by default): a webhook process
		// that missed a job's "finished" message in a Redis reconnect still finds the job finished when
		// it looks (every 5 s), and answers the delivery it holds (README, "Running in n8n queue mode").
		N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED: '1000',
		N8N_EXECUTIONS_QUEUE_KEEP_LAST_FAILED: '1000',
		// Main marks an execution whose job a dead worker held as crashed (so that it can be retried)
		// at its queue recovery check: every minute instead of n8n's 180 (README, queue mode).
		N8N_EXECUTIONS_QUEUE_RECOVERY_INTERVAL: '1',
	};
	const folder = (name: string) => {
		const userFolder = join(root, name);
		installPackage(userFolder);
		return userFolder;
	};
	const started: N8nProcess[] = [];
	const processes: Record<string, N8nProcess> = {};
	const stop = async () => {
		// Webhook process and workers first, main (which owns the schedule) last.
		for (const process of [...started].reverse()) await process.stop();
		await gate.stop();
	};
	try {
		// Main first: it runs the database migrations the others wait for.
		processes.main = await startMain(install, folder('main'), shared, mainPort);
		started.push(processes.main);
		const workerLogs: Record<string, string> = {};
		const starting = [
			...Array.from({ length: workers }, async (_, index) => {
				const name = `worker-${index + 1}`;
				const port = await freePort();
				const worker = await startN8nProcess(
					install,
					'worker',
					folder(name),
					{
						...shared,
						QUEUE_HEALTH_CHECK_ACTIVE: 'true',
						QUEUE_HEALTH_CHECK_PORT: String(port),
						N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
					},
					`http://127.0.0.1:${port}/healthz/readiness`,
				);
				workerLogs[name] = worker.log;
				return [name, worker] as const;
			}),
			(async () => {
				const webhook = await startN8nProcess(
					install,
					'webhook',
					folder('webhook'),
					{ ...shared, ...listenEnv(webhookPort) },
					`${webhookProcess}/healthz/readiness`,
				);
				return ['webhook', webhook] as const;
			})(),
		];
		const outcomes = await Promise.allSettled(starting);
		for (const outcome of outcomes)
			if (outcome.status === 'fulfilled') {
				const [name, process] = outcome.value;
				processes[name] = process;
				started.push(process);
			}
		const failed = outcomes.find((outcome) => outcome.status === 'rejected');
		if (failed) throw failed.reason;
		return {
			url,
			pin: install.pin,
			version: install.version,
			webhookBase,
			gate,
			log: started[0].log,
			workerLogs,
			processes,
			stop,
			async kill() {
				await Promise.all(started.map((process) => process.kill()));
			},
			async restart() {
				// Main first (it owns activation), then workers and the webhook process together.
				const [main, ...others] = started;
				await main.restart();
				await Promise.all(others.map((process) => process.restart()));
			},
		};
	} catch (error) {
		await stop();
		throw error;
	}
}
