import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
	copyFileSync,
	createWriteStream,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	realpathSync,
	statSync,
	writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { eventually, type EventuallyOptions } from './eventually.ts';
import { LINE_TRAITS, STARTED_LOG_LINE, type N8nLine } from './n8n-lines.ts';
import { startReadinessGate, type ReadinessGate } from './readiness-gate.ts';

const PACKAGE_NAME = 'n8n-nodes-traininglab';

/**
 * The repository: the folder above the working directory that holds this package's package.json
 * (found that way, not from this file's location, so that jest's CommonJS and Node's native ES
 * modules — `npm run dev` loads this file natively — read it alike).
 */
function repositoryRoot(): string {
	for (let dir = process.cwd(); ; dir = dirname(dir)) {
		const manifest = join(dir, 'package.json');
		if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === PACKAGE_NAME)
			return dir;
		if (dirname(dir) === dir)
			throw new Error(`run this from inside the ${PACKAGE_NAME} repository`);
	}
}

export const ROOT = repositoryRoot();

export function run(
	command: string,
	args: string[],
	options: { cwd: string; env?: NodeJS.ProcessEnv },
): string {
	const result = spawnSync(command, args, {
		cwd: options.cwd,
		env: options.env ?? process.env,
		encoding: 'utf8',
		maxBuffer: 256 * 1024 * 1024,
	});
	if (result.status !== 0)
		throw new Error(
			`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`.slice(
				-8000,
			),
		);
	return result.stdout;
}

/** The Node 24 runtime the project runs on (devDependency `node`, from the npm registry). */
function node24(): { bin: string } {
	return { bin: realpathSync(process.execPath) };
}

/** An installed n8n: where, and of which line. */
export interface N8nInstall {
	dir: string;
	line: N8nLine;
}

/**
 * The n8n of a line, installed once per lockfile into the cache (scripts/install-n8n.mjs, which
 * `.ci/run` also runs ahead of the suites) and reused while the lockfile is unchanged.
 */
export function ensureN8n(line: N8nLine = '2.x'): N8nInstall {
	const printed = run(node24().bin, [join(ROOT, 'scripts', 'install-n8n.mjs'), line], {
		cwd: ROOT,
	});
	return JSON.parse(printed.trim().split('\n').pop()!) as N8nInstall;
}

/**
 * This package as it is published, in `work`: the tarball the end-to-end run packed once before its
 * suites (test/e2e/global-setup.ts), copied, or else built and packed now. Returns its path.
 */
export function packPackage(work: string): string {
	const packedOnce = process.env.TRAININGLAB_E2E_TARBALL;
	if (!packedOnce) return buildAndPack(work);
	const tarball = join(work, basename(packedOnce));
	copyFileSync(packedOnce, tarball);
	return tarball;
}

/** Builds and packs this package into `work` as it is published (`npm run package`); returns the tarball's path. */
export function buildAndPack(work: string): string {
	run('npm', ['run', 'build'], { cwd: ROOT });
	const packed = JSON.parse(
		run('npm', ['pack', './build/npm-package', '--json', '--pack-destination', work], {
			cwd: ROOT,
		}),
	);
	return join(work, packed[0].filename);
}

/** Installs the packed package into an n8n user folder as n8n's community-package installer does. */
export function installTarball(userFolder: string, tarball: string): void {
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	const target = join(nodesDir, 'node_modules', PACKAGE_NAME);
	mkdirSync(target, { recursive: true });
	run('tar', ['-xzf', tarball, '-C', target, '--strip-components=1'], { cwd: userFolder });
	const { version } = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8'));
	writeFileSync(
		join(nodesDir, 'package.json'),
		JSON.stringify({
			name: 'installed-nodes',
			private: true,
			dependencies: { [PACKAGE_NAME]: version },
		}),
	);
}

export async function freePort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
}

export interface Process {
	child: ChildProcess;
	log: string;
	stop(): Promise<void>;
}

/** A process with its output in `log`, stopped by PID (`stopSignal`, SIGTERM by default). */
export function spawnLogged(
	command: string,
	args: string[],
	options: {
		cwd: string;
		env: NodeJS.ProcessEnv;
		log: string;
		uid?: number;
		gid?: number;
		stopSignal?: NodeJS.Signals;
		/** Adds to the log instead of starting it afresh (a process started again). */
		append?: boolean;
		/** In a process group of its own: a Ctrl-C in the terminal reaches only whoever stops it. */
		detached?: boolean;
	},
): Process {
	const child = spawn(command, args, {
		cwd: options.cwd,
		env: options.env,
		uid: options.uid,
		gid: options.gid,
		detached: options.detached,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const log = createWriteStream(options.log, { flags: options.append ? 'a' : 'w' });
	child.stdout!.pipe(log);
	child.stderr!.pipe(log);
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	return {
		child,
		log: options.log,
		async stop() {
			if (child.exitCode === null && child.signalCode === null)
				child.kill(options.stopSignal ?? 'SIGTERM');
			await exited;
		},
	};
}

export function tail(path: string, lines = 40): string {
	return existsSync(path) ? readFileSync(path, 'utf8').split('\n').slice(-lines).join('\n') : '';
}

/**
 * How the end-to-end suite waits (with `eventually`): every 100 ms; a probe that throws counts as
 * "not yet" (n8n or a service still starting) unless n8n has exited; a timeout shows the end of `log`.
 */
export function patiently(timeoutMs: number, log?: string): EventuallyOptions {
	return {
		timeoutMs,
		intervalMs: 100,
		retryErrors: (error) => !error.message.startsWith('n8n exited'),
		explain: log ? () => tail(log) : undefined,
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
	line: N8nLine;
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
	/** Kills the process at once (SIGKILL), as a crash or a pulled plug would. */
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
	const launch = async (append: boolean) => {
		logStart = append && existsSync(log) ? statSync(log).size : 0;
		seenInLog.clear();
		const n8n = spawnLogged(node24().bin, [bin, command], {
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
				N8N_RUNNERS_BROKER_PORT: String(await freePort()),
				N8N_LOG_LEVEL: 'info',
				...LINE_TRAITS[install.line].env,
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
				patiently(120_000, log),
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

/** What the main process needs to serve the editor and APIs on `port`, with the owner (2.x) set up. */
function mainEnv(install: N8nInstall, port: number): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {
		...listenEnv(port),
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}/`,
		N8N_SECURE_COOKIE: 'false',
	};
	if (LINE_TRAITS[install.line].owner !== 'environment') return env;
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

/** Starts the main process (`n8n start`) and sets the owner up where the line needs it done over REST. */
async function startMain(
	install: N8nInstall,
	userFolder: string,
	env: NodeJS.ProcessEnv,
	port: number,
	detached = false,
): Promise<N8nProcess> {
	const url = `http://127.0.0.1:${port}`;
	const traits = LINE_TRAITS[install.line];
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
	const { readinessPath, webhooksAfterStart } = LINE_TRAITS[install.line];
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
		line: install.line,
		webhookBase,
		gate,
		log: main.log,
		workerLogs: {},
		processes: { main },
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
			line: install.line,
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

/** An execution as n8n's public API lists it (with its data). */
export interface Execution {
	id: string;
	status: string;
	startedAt: string;
	stoppedAt?: string | null;
	data: any;
}

/** n8n's HTTP APIs: the internal REST API with the owner's session cookie, the public API with an API key. */
export class N8nClient {
	readonly url: string;
	readonly line: N8nLine;
	#cookie = '';
	#apiKey = '';
	#apiKeyId = '';

	constructor(n8n: { url: string; line: N8nLine }) {
		this.url = n8n.url;
		this.line = n8n.line;
	}

	/** Logs in as the owner (by default the one the harness sets up) and makes a public-API key. */
	async login(email = OWNER.email, password = OWNER.password): Promise<void> {
		const response = await fetch(`${this.url}/rest/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ emailOrLdapLoginId: email, password }),
		});
		if (!response.ok)
			throw new Error(`n8n login failed: ${response.status} ${await response.text()}`);
		this.#cookie = response.headers
			.getSetCookie()
			.map((cookie) => cookie.split(';')[0])
			.join('; ');
		const scopes = (await this.rest('GET', '/rest/api-keys/scopes')) as string[];
		const created = (await this.rest('POST', '/rest/api-keys', {
			label: `traininglab harness ${new Date().toISOString()}`,
			scopes,
			expiresAt: null,
		})) as { id: string; rawApiKey: string };
		this.#apiKey = created.rawApiKey;
		this.#apiKeyId = created.id;
	}

	/** Deletes the public-API key `login` made (an n8n that lives on, as `npm run dev`'s, keeps none). */
	async logout(): Promise<void> {
		if (this.#apiKeyId) await this.rest('DELETE', `/rest/api-keys/${this.#apiKeyId}`);
		this.#apiKeyId = '';
	}

	async rest(method: string, path: string, body?: unknown): Promise<unknown> {
		const response = await fetch(`${this.url}${path}`, {
			method,
			headers: { cookie: this.#cookie, ...(body ? { 'content-type': 'application/json' } : {}) },
			body: body ? JSON.stringify(body) : undefined,
		});
		const text = await response.text();
		if (!response.ok) throw new Error(`n8n ${method} ${path} → ${response.status}: ${text}`);
		try {
			return (JSON.parse(text) as { data: unknown }).data;
		} catch {
			throw new Error(
				`n8n ${method} ${path} → ${response.status}, not JSON: ${text.slice(0, 500)}`,
			);
		}
	}

	/** A JSON document the editor loads (e.g. `/types/nodes.json`), with the owner's session. */
	async editorJson<T = any>(path: string): Promise<T> {
		const response = await fetch(`${this.url}${path}`, { headers: { cookie: this.#cookie } });
		const text = await response.text();
		if (!response.ok)
			throw new Error(`n8n GET ${path} → ${response.status}: ${text.slice(0, 500)}`);
		return JSON.parse(text) as T;
	}

	async api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
		const response = await fetch(`${this.url}/api/v1${path}`, {
			method,
			headers: {
				'x-n8n-api-key': this.#apiKey,
				...(body ? { 'content-type': 'application/json' } : {}),
			},
			body: body ? JSON.stringify(body) : undefined,
		});
		const text = await response.text();
		if (!response.ok) throw new Error(`n8n API ${method} ${path} → ${response.status}: ${text}`);
		return (text ? JSON.parse(text) : undefined) as T;
	}

	/** Stores a credential: through the public API, or where the line's refuses ours, the editor's REST API. */
	async createCredential(
		name: string,
		type: string,
		data: Record<string, unknown>,
	): Promise<{ id: string }> {
		if (LINE_TRAITS[this.line].credentials === 'public-api')
			return await this.api('POST', '/credentials', { name, type, data });
		return (await this.rest('POST', '/rest/credentials', { name, type, data })) as { id: string };
	}

	/**
	 * Activates a workflow and returns once n8n has: at once on 1.x (activation answers when done), on
	 * 2.x when its background publication has ended. Throws with the triggers' errors if it failed.
	 */
	async activate(workflowId: string): Promise<void> {
		const failure = await this.#activateAndReadFailure(workflowId);
		if (failure !== undefined) throw new Error(`n8n could not activate the workflow: ${failure}`);
	}

	/**
	 * Activates a workflow whose trigger is expected to fail to start, and returns what n8n tells the
	 * user: the trigger's error in the publication status (2.x publishes in the background), or the
	 * activate request's answer (1.x).
	 */
	async activationFailure(workflowId: string): Promise<string> {
		const failure = await this.#activateAndReadFailure(workflowId);
		if (failure === undefined) throw new Error('n8n activated the workflow');
		return failure;
	}

	async #activateAndReadFailure(workflowId: string): Promise<string | undefined> {
		if (LINE_TRAITS[this.line].activation === 'synchronous') {
			try {
				await this.api('POST', `/workflows/${workflowId}/activate`);
				return undefined;
			} catch (error) {
				if (!/→ 4\d\d:/.test((error as Error).message)) throw error;
				return (error as Error).message;
			}
		}
		await this.api('POST', `/workflows/${workflowId}/activate`);
		const outcome = await eventually(
			async () => {
				const status = (await this.rest(
					'GET',
					`/rest/workflows/${workflowId}/publication-status`,
				)) as { status: string; triggers: Array<{ status: string; errorMessage: string | null }> };
				return !['in_progress', 'not_published'].includes(status.status) && status;
			},
			'n8n to finish publishing the workflow',
			patiently(120_000),
		);
		const failed = outcome.triggers.filter((trigger) => trigger.status === 'failed');
		if (outcome.status !== 'failed' && failed.length === 0) return undefined;
		return failed.map((trigger) => trigger.errorMessage).join('\n') || JSON.stringify(outcome);
	}

	/** Executions of a workflow with their data, newest first. */
	async executions(workflowId: string): Promise<Execution[]> {
		const page = await this.api<{ data: Execution[] }>(
			'GET',
			`/executions?workflowId=${workflowId}&includeData=true&limit=50`,
		);
		return page.data;
	}

	/** The workflow's executions running now (without their data: quick to ask for). */
	async runningExecutions(workflowId: string): Promise<Array<{ id: string }>> {
		const page = await this.api<{ data: Array<{ id: string }> }>(
			'GET',
			`/executions?workflowId=${workflowId}&status=running&limit=50`,
		);
		return page.data;
	}
}

/** A node of a workflow a test builds, placed `x` to the right. */
export function workflowNode(name: string, type: string, x: number, extra: object) {
	return { id: randomUUID(), name, type, position: [x, 0], ...extra };
}

/** n8n's own Webhook node named "Webhook", for POSTs to `path`, answered as `responseMode` says. */
export function webhookNode(path: string, responseMode: 'onReceived' | 'lastNode') {
	return workflowNode('Webhook', 'n8n-nodes-base.webhook', 0, {
		typeVersion: 2,
		webhookId: path,
		parameters: { path, httpMethod: 'POST', responseMode },
	});
}

/**
 * The start of a workflow a test builds: a Webhook at `path` (answered on receipt) and a Code node
 * named "Rows" that turns `rows` into items — or, with `'from the request'`, the request body's `rows`.
 */
export function webhookRows(path: string, rows: object[] | 'from the request') {
	const jsCode =
		rows === 'from the request'
			? 'return $json.body.rows.map((json) => ({ json }));'
			: `return ${JSON.stringify(rows.map((json) => ({ json })))};`;
	return {
		nodes: [
			webhookNode(path, 'onReceived'),
			workflowNode('Rows', 'n8n-nodes-base.code', 200, {
				typeVersion: 2,
				parameters: { jsCode },
			}),
		],
		connections: { Webhook: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] } },
	};
}

/** An example workflow of examples/, with its placeholders filled in. */
export function example(name: string, replacements: Record<string, string>): any {
	let text = readFileSync(join(ROOT, 'examples', `${name}.json`), 'utf8');
	for (const [placeholder, value] of Object.entries(replacements))
		text = text.split(placeholder).join(value);
	return JSON.parse(text);
}

export function tempRoot(): string {
	return mkdtempSync(join(tmpdir(), 'traininglab-e2e-'));
}
