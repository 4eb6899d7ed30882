// `npm run dev`: the whole product on this machine, ready to click. The API server with a demo
// organization, a real n8n (the e2e suites' cached install) with this package built and installed,
// an owner account, a Training Lab credential holding the demo admin's key, the example workflows
// imported and the trigger examples active. Then it follows nodes/ and credentials/: a change
// rebuilds the package and n8n reloads it (N8N_DEV_RELOAD, as n8n's own `n8n-node dev` does). Ctrl-C
// stops every process it started, by PID. Its data stays in .dev/ (--data) for the next run;
// --fresh starts from empty data.
import { randomBytes } from 'node:crypto';
import {
	existsSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
} from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ApiClient, demoVersionsOf } from '../api/client.ts';
import { bootstrapOrg, spawnServer, type ServerProcess } from '../api/server-process.ts';
import { ensureN8n, installTarball, packPackage } from '../n8n/install.ts';
import { example } from '../n8n/workflows.ts';
import { canListen, freePort } from '../processes.ts';
import { N8nClient } from '../n8n/client.ts';
import { OWNER, startN8n, type N8n } from '../n8n/processes.ts';
import { ROOT } from '../root.ts';
import { buildConsole } from '../../scripts/build-console.mts';
import { consoleUrlOf } from '../../server/src/http/console.ts';
import { eventually } from '../eventually.ts';
import type { Webhook } from '../../server/src/schemas/webhooks.ts';

const USAGE = `usage: npm run dev [-- --fresh] [-- --api-port 3000 --n8n-port 5678] [-- --data .dev]

Starts the Training Lab API server with a demo organization and a real n8n with this package,
its credential and the example workflows, then rebuilds and reloads the package into n8n whenever
nodes/ or credentials/ change. Ctrl-C stops everything.

  --fresh          delete the data of earlier runs first (API database, n8n's workflows)
  --api-port N     the API server's port (default: the last run's, or a free one)
  --n8n-port N     n8n's port (default: the last run's, or a free one)
  --data DIR       where the data lives (default: .dev in the repository)
  -h, --help       print this`;

const PROGRESS = (text: string) => console.log(`  ${text}`);

interface State {
	apiPort: number;
	n8nPort: number;
	org: { id: string; name: string };
	adminEmail: string;
	apiKey: string;
	mcpToken: string;
	credentialId?: string;
}

/** The examples: [file, is activated]. Trigger examples run on their own; the others wait for a click. */
const EXAMPLES: Array<[string, boolean]> = [
	['react-to-member-removal', true],
	['react-to-organization-closure', true],
	['mcp-server', true],
	['bulk-session-creation', false],
	['ai-agent', false],
];

function parseOptions() {
	try {
		const { values } = parseArgs({
			options: {
				fresh: { type: 'boolean', default: false },
				'api-port': { type: 'string' },
				'n8n-port': { type: 'string' },
				data: { type: 'string' },
				help: { type: 'boolean', short: 'h', default: false },
			},
		});
		const port = (text: string | undefined, name: string) => {
			if (text === undefined) return undefined;
			const port = Number(text);
			if (!Number.isInteger(port) || port < 1 || port > 65535)
				throw new Error(`--${name} must be a port number, not "${text}"`);
			return port;
		};
		return {
			fresh: values.fresh,
			help: values.help,
			apiPort: port(values['api-port'], 'api-port'),
			n8nPort: port(values['n8n-port'], 'n8n-port'),
			data: resolve(ROOT, values.data ?? '.dev'),
		};
	} catch (error) {
		console.error(`${(error as Error).message}\n\n${USAGE}`);
		process.exit(2);
	}
}

/** The given port (which must be free), else the last run's if it is free, else any free one. */
async function choosePort(given: number | undefined, last: number | undefined, what: string) {
	if (given !== undefined) {
		if (!(await canListen(given))) {
			console.error(`Port ${given} for ${what} on 127.0.0.1 is already in use: give another.`);
			process.exit(1);
		}
		return given;
	}
	if (last !== undefined && (await canListen(last))) return last;
	return await freePort();
}

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

const options = parseOptions();
if (options.help) {
	console.log(USAGE);
	process.exit(0);
}

const started = performance.now();
const statePath = join(options.data, 'state.json');
if (options.fresh) rmSync(options.data, { recursive: true, force: true });
mkdirSync(options.data, { recursive: true });
const earlier: State | undefined = existsSync(statePath)
	? (JSON.parse(readFileSync(statePath, 'utf8')) as State)
	: undefined;
console.log(
	`Training Lab dev: data in ${options.data} (${earlier ? 'kept from the last run; --fresh starts empty' : 'new'})`,
);

let api: ServerProcess | undefined;
let n8n: N8n | undefined;
let client: N8nClient | undefined;
let stopping: Promise<void> | undefined;

/** Stops what this run started, by PID: n8n first, then the API it talks to. */
function stopAll(): Promise<void> {
	stopping ??= (async () => {
		toClose.forEach((closable) => closable.close());
		await client?.logout().catch(() => undefined);
		const stopped: string[] = [];
		if (n8n) {
			await n8n.stop();
			stopped.push(`n8n (pid ${n8n.processes.main.pid})`);
		}
		if (api) {
			await api.stop();
			stopped.push(`the API server (pid ${api.child.pid})`);
		}
		console.log(stopped.length ? `Stopped ${stopped.join(' and ')}.` : 'Stopped.');
	})();
	return stopping;
}
const toClose: Array<{ close(): void }> = [];
for (const signal of ['SIGINT', 'SIGTERM'] as const)
	process.on(signal, () => void stopAll().then(() => process.exit(0)));

try {
	// 1. n8n, from the e2e suites' cache (installed there on the first run: a few minutes).
	let since = performance.now();
	const n8nVersion = JSON.parse(
		readFileSync(join(ROOT, 'test', 'e2e', 'n8n', '2.x', 'package.json'), 'utf8'),
	).dependencies.n8n as string;
	PROGRESS(`n8n ${n8nVersion}: installing, or taking it from the cache…`);
	const install = ensureN8n('2.x');
	PROGRESS(`n8n ${n8nVersion} ready (${seconds(since)})`);

	// 2. The package, built and installed into n8n's user folder as the community installer does.
	since = performance.now();
	const userFolder = join(options.data, 'n8n');
	const buildDir = join(options.data, 'build');
	const installPackage = () => {
		rmSync(buildDir, { recursive: true, force: true });
		mkdirSync(buildDir, { recursive: true });
		installTarball(userFolder, packPackage(buildDir));
	};
	installPackage();
	PROGRESS(`package built and installed (${seconds(since)})`);

	// 3. The web console, the API server, and the demo organization on its first run.
	since = performance.now();
	await buildConsole();
	const apiPort = await choosePort(options.apiPort, earlier?.apiPort, 'the API server');
	const databasePath = join(options.data, 'api.sqlite');
	let state: State;
	if (earlier && existsSync(databasePath)) state = { ...earlier, apiPort };
	else {
		const demo = bootstrapOrg(databasePath, 'Demo Training', 'admin@demo.test');
		state = {
			apiPort,
			n8nPort: 0,
			org: { id: demo.org.id, name: demo.org.name },
			adminEmail: demo.user.email,
			apiKey: demo.api_key,
			mcpToken: randomBytes(24).toString('base64url'),
		};
	}
	api = await spawnServer(
		{
			DATABASE_PATH: databasePath,
			PORT: String(apiPort),
			// n8n listens on plain http on loopback.
			WEBHOOK_ALLOW_INSECURE_URLS: 'true',
			// Prometheus metrics at /metrics, on loopback, unguarded (docs/observability.md).
			METRICS_ENABLED: 'true',
		},
		'node',
		join(options.data, 'api-server.log'),
		true,
	);
	const demoAdmin = new ApiClient(api.url, state.apiKey);
	PROGRESS(`API server on ${api.url} (${seconds(since)})`);

	// 4. n8n with the owner, in one process on SQLite, reloading the package when it changes.
	since = performance.now();
	const n8nPort = await choosePort(options.n8nPort, earlier?.n8nPort, 'n8n');
	n8n = await startN8n(install, userFolder, {
		port: n8nPort,
		env: { N8N_DEV_RELOAD: 'true' },
		detached: true,
	});
	client = new N8nClient(n8n);
	await client.login();
	PROGRESS(`n8n on ${n8n.url} (${seconds(since)})`);

	// 5. The credential, the examples, the triggers on: what is there already is kept.
	since = performance.now();
	const moved =
		earlier !== undefined && (earlier.apiPort !== apiPort || earlier.n8nPort !== n8nPort);
	state = { ...state, n8nPort, credentialId: await upsertCredential(client, state, api.url) };
	writeFileSync(statePath, JSON.stringify(state, null, '\t'));
	await setUpExamples(client, demoAdmin, state, moved);
	await forgetEndpointsOfOtherPorts(demoAdmin, state, n8n.webhookBase);
	PROGRESS(`credential, ${EXAMPLES.length} examples, trigger examples active (${seconds(since)})`);

	const shown = (path: string) =>
		path.startsWith(`${process.cwd()}/`) ? relative(process.cwd(), path) : path;
	console.log(`
Ready in ${seconds(started)}.

  Editor      ${n8n.url}   log in as ${OWNER.email} / ${OWNER.password}
  Console     ${consoleUrlOf(api.url)}   sign in with the key below
  API         ${api.url}
  API key     ${state.apiKey}   (admin ${state.adminEmail} of "${state.org.name}", ${state.org.id})
  MCP server  ${n8n.webhookBase}/mcp/training-lab   Authorization: Bearer ${state.mcpToken}
  Logs        ${shown(join(options.data, 'api-server.log'))}, ${shown(n8n.log)}

${await tryIt(demoAdmin, state)}

Watching nodes/ and credentials/ (a change rebuilds the package and n8n reloads it) and server/console/
(a change rebuilds the console). Ctrl-C stops everything.`);
	followSources(installPackage, n8n);
	followConsoleSources();
} catch (error) {
	console.error(`\nnpm run dev failed: ${(error as Error).message}`);
	await stopAll();
	process.exit(1);
}

/** A command that starts the active example: removing a trainer of the demo organization. */
async function tryIt(demoAdmin: ApiClient, state: State): Promise<string> {
	const members = (
		await demoAdmin.getAll<{ user_id: string; email: string; role: string }>(
			`/orgs/${state.org.id}/members`,
		)
	).items;
	const apiUrl = demoAdmin.baseUrl;
	const trainer = members.find((member) => member.role === 'trainer');
	const auth = `-H "Authorization: Bearer ${state.apiKey}"`;
	if (!trainer)
		return `Try it: add a member, remove it with the user_id this returns, and see "Training Lab: react to member removal" run (editor → Executions):
  curl -s ${auth} -H "Content-Type: application/json" -d '{"email":"new@demo.test","name":"New Trainer","role":"trainer"}' ${apiUrl}/orgs/${state.org.id}/members`;
	return `Try it: remove ${trainer.email} and see "Training Lab: react to member removal" run (editor → Executions).
In the console: Members → Remove, next to ${trainer.email}. Or with curl:
  curl -s -X DELETE ${auth} ${apiUrl}/orgs/${state.org.id}/members/${trainer.user_id}`;
}

/** The demo admin's credential: made on the first run, its Base URL and key set again on later ones. */
async function upsertCredential(client: N8nClient, state: State, baseUrl: string): Promise<string> {
	const data = { baseUrl, apiKey: state.apiKey };
	const name = `Training Lab (${state.org.name})`;
	if (state.credentialId) {
		try {
			await client.rest('PATCH', `/rest/credentials/${state.credentialId}`, {
				name,
				type: 'trainingLabApi',
				data,
			});
			return state.credentialId;
		} catch {
			// Deleted in the editor since: make it again.
		}
	}
	return (await client.createCredential(name, 'trainingLabApi', data)).id;
}

/** Imports the examples not there yet (by name) and activates the trigger examples. */
async function setUpExamples(
	client: N8nClient,
	demoAdmin: ApiClient,
	state: State,
	moved: boolean,
): Promise<void> {
	const existing = (
		await client.api<{ data: Array<{ id: string; name: string; active: boolean }> }>(
			'GET',
			'/workflows?limit=250',
		)
	).data;
	const bearer = await mcpBearerCredential(client, state);
	const { published } = await demoVersionsOf(demoAdmin);
	for (const [file, activated] of EXAMPLES) {
		const workflow = example(file, {
			YOUR_CREDENTIAL_ID: state.credentialId!,
			YOUR_MCP_BEARER_CREDENTIAL_ID: bearer,
			YOUR_PUBLISHED_LAB_VERSION_ID: published,
		});
		if (file === 'ai-agent') withoutOpenAiCredential(workflow);
		let found = existing.find((candidate) => candidate.name === workflow.name);
		if (!found) {
			const created = await client.api<{ id: string }>('POST', '/workflows', workflow);
			found = { id: created.id, name: workflow.name, active: false };
		}
		if (!activated) continue;
		// After a port change the trigger's endpoint must be registered again, at n8n's new URL.
		if (found.active && moved) await client.api('POST', `/workflows/${found.id}/deactivate`);
		if (!found.active || moved) await client.activate(found.id);
	}
}

/** The AI example asks for the user's own OpenAI credential: its placeholder is taken out. */
function withoutOpenAiCredential(workflow: { nodes: Array<{ credentials?: object }> }): void {
	for (const node of workflow.nodes)
		if (node.credentials && 'openAiApi' in node.credentials) delete node.credentials;
}

/** The bearer credential MCP clients present to the MCP Server Trigger example. */
async function mcpBearerCredential(client: N8nClient, state: State): Promise<string> {
	const name = 'MCP clients (Training Lab dev)';
	const credentials = (await client.rest('GET', '/rest/credentials')) as Array<{
		id: string;
		name: string;
	}>;
	const found = credentials.find((credential) => credential.name === name);
	if (found) return found.id;
	return (await client.createCredential(name, 'httpBearerAuth', { token: state.mcpToken })).id;
}

/** Endpoints a trigger registered for n8n on another port in an earlier run: nothing listens there now. */
async function forgetEndpointsOfOtherPorts(
	demoAdmin: ApiClient,
	state: State,
	webhookBase: string,
): Promise<void> {
	const webhooks = `/orgs/${state.org.id}/webhooks`;
	const endpoints = (await demoAdmin.getAll<Webhook>(webhooks)).items;
	for (const endpoint of endpoints)
		if (
			new URL(endpoint.url).hostname === '127.0.0.1' &&
			!endpoint.url.startsWith(`${webhookBase}/`)
		)
			await demoAdmin.delete(`${webhooks}/${endpoint.id}`);
}

/** Every file below `folders` with its size and modification time: what a change alters. */
function snapshot(folders: string[]): string {
	const entries: string[] = [];
	for (const folder of folders)
		for (const file of readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })) {
			const stats = statSync(join(ROOT, folder, file), { throwIfNoEntry: false });
			if (stats?.isFile()) entries.push(`${folder}/${file}:${stats.size}:${stats.mtimeMs}`);
		}
	return entries.sort().join('\n');
}

/**
 * Calls `handle` whenever a file below `folders` changes; a change during `handle` makes one more
 * call after it. Looks twice a second rather than with fs.watch, whose recursive mode on Linux loses
 * a file that an editor saves by writing a new one and renaming it over the old.
 */
function whenChanged(folders: string[], handle: () => void | Promise<void>): void {
	let seen = snapshot(folders);
	let busy = false;
	const timer = setInterval(async () => {
		if (busy) return;
		const now = snapshot(folders);
		if (now === seen) return;
		seen = now;
		busy = true;
		try {
			await handle();
		} finally {
			busy = false;
		}
	}, 500);
	toClose.push({ close: () => clearInterval(timer) });
}

/** Rebuilds the console on every change under server/console (the server serves the new build at once). */
function followConsoleSources(): void {
	whenChanged(['server/console'], async () => {
		try {
			await buildConsole();
			console.log(`\nConsole rebuilt: reload its page.`);
		} catch (error) {
			console.error(`The console did not build:\n${(error as Error).message}`);
		}
	});
}

/**
 * Rebuilds and reinstalls the package on every change under nodes/ or credentials/, and says when
 * n8n has reloaded it.
 */
function followSources(installPackage: () => void, n8n: N8n): void {
	whenChanged(['nodes', 'credentials'], async () => {
		const since = performance.now();
		const logBefore = readFileSync(n8n.log, 'utf8').length;
		try {
			console.log('\nChanged: rebuilding the package…');
			installPackage();
			await eventually(
				() => readFileSync(n8n.log, 'utf8').slice(logBefore).includes('Hot reload triggered'),
				'n8n to reload the package',
				{ timeoutMs: 30_000, intervalMs: 100 },
			);
			console.log(`Rebuilt and reloaded into n8n in ${seconds(since)}. Reload the editor's page.`);
		} catch (error) {
			console.error(
				`The rebuild failed; n8n keeps the last good build:\n${(error as Error).message}`,
			);
		}
	});
}
