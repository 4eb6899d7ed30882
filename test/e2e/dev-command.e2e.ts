import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:net';
import type { Browser } from 'playwright-core';
import { ApiClient } from '../../tooling/api/client';
import { ensureChromium, launchChromium } from '../../tooling/browser';
import { eventually } from '../../tooling/eventually';
import { freePort, tempRoot } from '../../tooling/processes';
import { N8nClient } from '../../tooling/n8n/client';
import { ensureN8n } from '../../tooling/n8n/install';
import { patiently } from '../../tooling/n8n/processes';
import { ROOT } from '../../tooling/root';
import { ConsolePage } from './console-page';

/**
 * `npm run dev`, run as the README says, in a data folder of its own: what it prints is what a
 * newcomer uses (the editor's URL and login, the API and its key), and Ctrl-C leaves nothing running.
 */
describe('npm run dev', () => {
	let data: string;

	let browser: Browser;

	beforeAll(async () => {
		data = tempRoot();
		ensureChromium('The dev command test');
		// n8n from the e2e cache, installed here if .ci/run's install has not got to it yet: `npm run
		// dev` takes it from there, and a test's timeout is not meant to cover an install.
		ensureN8n('2.x');
		browser = await launchChromium();
	}, 20 * 60_000);

	afterAll(async () => {
		await browser?.close();
		if (!process.env.TRAININGLAB_E2E_KEEP) rmSync(data, { recursive: true, force: true });
	});

	interface Dev {
		child: ChildProcess;
		output: () => string;
		exited: Promise<number | null>;
		printed: {
			editor: string;
			console: string;
			email: string;
			password: string;
			api: string;
			apiKey: string;
			orgId: string;
		};
	}

	/** Starts `npm run dev` as a terminal would run it (its own process group) and waits for "Ready". */
	async function startDev(args: string[]): Promise<Dev> {
		// As a user runs it: it builds the package itself (not the e2e run's tarball).
		const env = { ...process.env };
		delete env.TRAININGLAB_E2E_TARBALL;
		const child = spawn('npm', ['run', 'dev', '--', '--data', data, ...args], {
			cwd: ROOT,
			env,
			detached: true,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let output = '';
		child.stdout!.on('data', (chunk) => (output += chunk));
		child.stderr!.on('data', (chunk) => (output += chunk));
		const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
		await eventually(
			() => {
				if (child.exitCode !== null) throw new Error(`npm run dev exited:\n${output}`);
				return /Watching nodes\//.test(output);
			},
			'npm run dev to be ready',
			{ ...patiently(10 * 60_000), explain: () => output },
		);
		const field = (pattern: RegExp) => {
			const match = pattern.exec(output);
			if (!match) throw new Error(`npm run dev did not print ${pattern}:\n${output}`);
			return match[1];
		};
		console.log(`npm run dev ${args.join(' ')}: ready in ${field(/Ready in (\S+ s)/)}`);
		return {
			child,
			output: () => output,
			exited,
			printed: {
				editor: field(/Editor\s+(http:\/\/\S+)/),
				email: field(/log in as (\S+) \//),
				password: field(/log in as \S+ \/ (\S+)/),
				console: field(/Console\s+(http:\/\/\S+\/console\/)/),
				api: field(/API\s+(http:\/\/\S+\/api\/v1)/),
				apiKey: field(/API key\s+(\S+)/),
				orgId: field(/API key\s+\S+\s+\(admin \S+ of "[^"]+", (\S+)\)/),
			},
		};
	}

	/**
	 * Ctrl-C: SIGINT to the terminal's foreground process group (npm, and the script under it); waits
	 * until npm has ended (npm ends by the signal, as an interrupted program does).
	 */
	async function pressCtrlC(dev: Dev): Promise<void> {
		process.kill(-dev.child.pid!, 'SIGINT');
		await dev.exited;
	}

	/** Processes whose command line, working folder or environment names `folder`. */
	function processesUsing(folder: string): string[] {
		const found: string[] = [];
		for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
			try {
				const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
				const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
				const cwd = readlinkSync(`/proc/${pid}/cwd`);
				if ([cmdline, environ, cwd].some((text) => text.includes(folder)))
					found.push(`${pid}: ${cmdline.replace(/\0/g, ' ')}`);
			} catch {
				// Gone meanwhile, or not ours to read.
			}
		}
		return found;
	}

	async function listening(url: string): Promise<boolean> {
		const { hostname, port } = new URL(url);
		return await new Promise((resolve) => {
			const socket = connect(Number(port), hostname);
			socket.once('connect', () => {
				socket.destroy();
				resolve(true);
			});
			socket.once('error', () => resolve(false));
		});
	}

	async function loggedIn(dev: Dev): Promise<N8nClient> {
		const client = new N8nClient({ url: dev.printed.editor, pin: '2.x' });
		await client.login(dev.printed.email, dev.printed.password);
		return client;
	}

	const exampleNames = [
		'Training Lab: react to member removal',
		'Training Lab: react to organization closure',
		'Training Lab: tools for MCP clients',
		'Training Lab: create sessions in bulk every Monday',
		'Training Lab: chat with an AI agent that schedules sessions',
	];

	it('starts the API, its console and n8n with the credential and the examples; a member removed in the console starts the example; Ctrl-C stops everything', async () => {
		const dev = await startDev(['--fresh']);
		const { printed } = dev;
		let client: N8nClient | undefined;
		try {
			const editor = await fetch(printed.editor);
			expect(editor.status).toBe(200);
			expect(await editor.text()).toContain('<title>n8n');

			client = await loggedIn(dev);
			const credentials = (await client.rest('GET', '/rest/credentials')) as Array<{
				id: string;
				type: string;
			}>;
			const trainingLab = credentials.filter((credential) => credential.type === 'trainingLabApi');
			expect(trainingLab).toHaveLength(1);
			const stored = (await client.rest(
				'GET',
				`/rest/credentials/${trainingLab[0].id}?includeData=true`,
			)) as { id: string; name: string; type: string; data: Record<string, unknown> };
			// The key comes back redacted; n8n tests the stored one, as when the editor's Test is clicked.
			expect(stored.data).toMatchObject({ baseUrl: printed.api });
			expect(await client.rest('POST', '/rest/credentials/test', { credentials: stored })).toEqual({
				status: 'OK',
				message: 'Connection successful!',
			});

			const workflows = (
				await client.api<{ data: Array<{ id: string; name: string; active: boolean }> }>(
					'GET',
					'/workflows?limit=250',
				)
			).data;
			expect(workflows.map((workflow) => workflow.name).sort()).toEqual([...exampleNames].sort());
			const active = workflows
				.filter((workflow) => workflow.active)
				.map((workflow) => workflow.name);
			expect(active.sort()).toEqual(exampleNames.slice(0, 3).sort());

			// What the printed "Try it" says: a trainer removed in the console, signed in with the printed key.
			const api = new ApiClient(printed.api, printed.apiKey);
			const members = (await api.get(`/orgs/${printed.orgId}/members`)).body;
			const trainer = members.find((member: { role: string }) => member.role === 'trainer');
			expect(dev.output()).toContain(`In the console: Members → Remove, next to ${trainer.email}.`);
			expect(new URL(printed.console).origin).toBe(new URL(printed.api).origin);
			const tab = await ConsolePage.open(browser, new URL(printed.console).origin);
			try {
				await tab.signedIn(printed.apiKey);
				await tab.goTo('Members');
				await tab.page.getByRole('button', { name: `Remove ${trainer.name}` }).click();
				await tab.page
					.getByRole('dialog')
					.getByRole('button', { name: `Remove ${trainer.name}` })
					.click();
				await tab.page
					.getByRole('status')
					.filter({ hasText: `${trainer.name} was removed.` })
					.waitFor();
			} finally {
				await tab.close();
			}
			const removal = workflows.find((workflow) => workflow.name === exampleNames[0])!;
			const [execution] = await eventually(
				async () => {
					const executions = await client!.executions(removal.id);
					return executions.length > 0 && executions[0].status === 'success' && executions;
				},
				'the example to run',
				patiently(60_000),
			);
			const notice = execution.data.resultData.runData['Offboarding notice'][0].data.main[0];
			expect(notice).toEqual([
				expect.objectContaining({ json: expect.objectContaining({ email: trainer.email }) }),
			]);
		} finally {
			await client?.logout();
			await pressCtrlC(dev);
		}

		const stopped = /Stopped n8n \(pid (\d+)\) and the API server \(pid (\d+)\)\./.exec(
			dev.output(),
		);
		expect(stopped).not.toBeNull();
		for (const pid of stopped!.slice(1)) expect(existsSync(`/proc/${pid}`)).toBe(false);
		expect(processesUsing(data)).toEqual([]);
		expect(await listening(printed.editor)).toBe(false);
		expect(await listening(printed.api)).toBe(false);
	});

	it('a second run on other ports keeps the data (key, credential, examples, no copies), moves the triggers, and reloads the package when a source changes', async () => {
		const first = JSON.parse(readFileSync(`${data}/state.json`, 'utf8')) as { apiKey: string };
		const [apiPort, n8nPort] = [await freePort(), await freePort()];
		const dev = await startDev(['--api-port', String(apiPort), '--n8n-port', String(n8nPort)]);
		let client: N8nClient | undefined;
		try {
			expect(dev.output()).toContain('kept from the last run');
			expect(dev.printed.apiKey).toBe(first.apiKey);
			expect(dev.printed.api).toBe(`http://127.0.0.1:${apiPort}/api/v1`);
			expect(dev.printed.editor).toBe(`http://127.0.0.1:${n8nPort}`);
			client = await loggedIn(dev);
			const workflows = (
				await client.api<{ data: Array<{ name: string; active: boolean }> }>(
					'GET',
					'/workflows?limit=250',
				)
			).data;
			expect(workflows.map((workflow) => workflow.name).sort()).toEqual([...exampleNames].sort());
			expect(workflows.filter((workflow) => workflow.active)).toHaveLength(3);
			const credentials = (await client.rest('GET', '/rest/credentials')) as Array<{
				id: string;
				type: string;
			}>;
			expect(credentials.filter((credential) => credential.type === 'trainingLabApi')).toHaveLength(
				1,
			);
			// The example's trigger is registered once, for this run's n8n.
			const endpoints = (
				await new ApiClient(dev.printed.api, dev.printed.apiKey).get(
					`/orgs/${dev.printed.orgId}/webhooks`,
				)
			).body as Array<{ url: string }>;
			expect(endpoints.map((endpoint) => new URL(endpoint.url).origin)).toEqual(
				endpoints.map(() => new URL(dev.printed.editor).origin),
			);
			expect(endpoints).toHaveLength(2);
			const trainingLab = credentials.find((credential) => credential.type === 'trainingLabApi')!;
			const stored = await client.rest(
				'GET',
				`/rest/credentials/${trainingLab.id}?includeData=true`,
			);
			expect(await client.rest('POST', '/rest/credentials/test', { credentials: stored })).toEqual({
				status: 'OK',
				message: 'Connection successful!',
			});

			// A source file saved again (its time changes, not its content): rebuilt, and n8n reloads it.
			const source = join(ROOT, 'credentials', 'TrainingLabApi.credentials.ts');
			const now = new Date();
			utimesSync(source, now, now);
			await eventually(
				() => /Rebuilt and reloaded into n8n in/.test(dev.output()),
				'the package to be rebuilt and reloaded',
				{ ...patiently(120_000), explain: () => dev.output() },
			);
		} finally {
			await client?.logout();
			await pressCtrlC(dev);
		}
		expect(processesUsing(data)).toEqual([]);
		expect(existsSync(`${data}/api.sqlite`)).toBe(true);
	});
});
