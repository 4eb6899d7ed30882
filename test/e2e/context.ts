import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { ApiClient } from '../../tooling/api/client';
import { bootstrapOrg, type ServerProcess } from '../../tooling/api/server-process';
import { eventually } from '../../tooling/eventually';
import type { N8nClient, Execution } from '../../tooling/n8n/client';
import type { N8nInstall } from '../../tooling/n8n/install';
import { PINS, type N8nPin, type N8nTraits } from '../../tooling/n8n/pins';
import { patiently, type N8n } from '../../tooling/n8n/processes';
import { example, workflowNode } from '../../tooling/n8n/workflows';
import type { LossyProxy } from '../support/lossy-proxy';
import type { OtlpReceiver } from '../support/otlp-receiver';
import type { Receiver } from '../support/receiver';
import { NODE_TYPE } from '../../tooling/root';

/** Which n8n a suite runs, and how: one process, or scaled out in queue mode. */
export interface Topology {
	pin: N8nPin;
	/** Starts n8n with the packed package (`tarball`) installed, every file below `work`, with `env` added. */
	start(install: N8nInstall, work: string, tarball: string, env?: NodeJS.ProcessEnv): Promise<N8n>;
	/** Which processes run executions: `['main']`, or the workers' names. */
	executors: string[];
	/** Scaled out: executions queued in Redis for workers. */
	queue: boolean;
}

/** An organization of the suite's API server: its admin's key and a client acting with it. */
export interface Org {
	org: { id: string };
	api_key: string;
	client: ApiClient;
}

/** A webhook endpoint as the API lists it. */
export interface Endpoint {
	id: string;
	url: string;
	event_types: string[];
	created_at: string;
	disabled_at: string | null;
	held_since: string | null;
	held_reason: string | null;
}

/** A delivery to one of an organization's endpoints, as the API server's database holds it. */
export interface Delivery {
	event_id: string;
	status: string;
	attempts: number;
	last_status_code: number | null;
	last_error: string | null;
}

/**
 * What every scenario module works with: one n8n of the suite's topology, one API server (rate limit
 * 60 requests per 10 s, retries within seconds), a lossy proxy in front of it, a receiver of the
 * notices workflows send, and the helpers the scenarios share. The suite (suite.ts) fills the fields
 * in its beforeAll; scenarios read them in their tests.
 */
export class E2e {
	work!: string;
	databasePath!: string;
	api!: ServerProcess;
	n8n!: N8n;
	client!: N8nClient;
	proxy!: LossyProxy;
	notices!: Receiver;
	/** Where the API server and n8n send their traces, in the suites that trace (`traced`). */
	collector?: OtlpReceiver;
	readonly #orgs = new Map<string, Org>();
	/** Workflows the running test activated: deactivated after it, whatever its outcome. */
	readonly #active = new Set<string>();
	/** Whether a test runs (not a beforeAll, whose workflows stay for the tests that share them). */
	#inTest = false;
	/**
	 * While scenarios run side by side (side-by-side.ts), what they activate: deactivated when their
	 * describe ends, not after whichever test happens to be running.
	 */
	#sideBySide: Set<string> | undefined;

	/**
	 * `full`: every scenario (the newest n8n of each line); `compatibility`: what the package needs of
	 * every n8n it supports (the oldest of each line, and the newest release in the weekly job).
	 */
	constructor(
		readonly topology: Topology,
		readonly scope: 'full' | 'compatibility' | 'traces' = 'full',
	) {}

	/** Whether the API server and n8n export traces to `collector`: the traces suite's. */
	get traced(): boolean {
		return this.scope === 'traces';
	}

	/** How the suite's n8n differs from the others (tooling/n8n/pins.ts). */
	get traits(): N8nTraits {
		return PINS[this.topology.pin];
	}

	/**
	 * The organization `name` ("E2E <name>", admin `<name in kebab-case>@e2e.test`), made by the
	 * bootstrap command the first time a scenario asks for it.
	 */
	org(name: string): Org {
		let org = this.#orgs.get(name);
		if (!org) {
			const email = `${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}@e2e.test`;
			const made = bootstrapOrg(this.databasePath, `E2E ${name}`, email);
			org = { ...made, client: new ApiClient(this.api.url, made.api_key) };
			this.#orgs.set(name, org);
		}
		return org;
	}

	async credential(name: string, baseUrl: string, apiKey: string): Promise<string> {
		return (await this.client.createCredential(name, 'trainingLabApi', { baseUrl, apiKey })).id;
	}

	/** A Training Lab credential for the organization `org`, named after it. */
	async credentialOf(org: string, baseUrl = this.api.url): Promise<string> {
		return this.credential(`Training Lab ${org}`, baseUrl, this.org(org).api_key);
	}

	/** Stores a workflow in n8n; returns its id. */
	async create(workflow: object): Promise<string> {
		return (await this.client.api<{ id: string }>('POST', '/workflows', workflow)).id;
	}

	async importExample(
		name: string,
		replacements: Record<string, string>,
	): Promise<{ id: string; workflow: any }> {
		const workflow = example(name, replacements);
		return { id: await this.create(workflow), workflow };
	}

	/**
	 * Activates a workflow (n8n has published it). One activated by a test is deactivated after it,
	 * whatever its outcome; one activated in a `beforeAll` stays for the tests that share it.
	 */
	async activate(workflowId: string): Promise<void> {
		this.#cleanUpAfterTest(workflowId);
		await this.client.activate(workflowId);
	}

	/** Activates a workflow whose trigger is expected to fail to start; returns what n8n tells the user. */
	async activationFailure(workflowId: string): Promise<string> {
		this.#cleanUpAfterTest(workflowId);
		return this.client.activationFailure(workflowId);
	}

	#cleanUpAfterTest(workflowId: string): void {
		if (this.#sideBySide) this.#sideBySide.add(workflowId);
		else if (this.#inTest) this.#active.add(workflowId);
	}

	/** A workflow the test activated that n8n no longer has (its database restored): left alone after it. */
	forget(workflowId: string): void {
		this.#active.delete(workflowId);
	}

	/**
	 * Waits until n8n's webhooks are reached again after a restart: the readiness gate lets requests
	 * in (on 1.x only once n8n's start has ended, some seconds after its REST API answers).
	 */
	async webhooksReached(): Promise<void> {
		await eventually(
			async () => (await fetch(`${this.n8n.webhookBase}/healthz`)).status === 200,
			"n8n's webhooks to be reached",
			patiently(120_000, this.n8n.log),
		);
	}

	/** Scenarios start side by side: what they activate is deactivated by `sideBySideEnded`. */
	sideBySideStarts(): void {
		this.#sideBySide = new Set();
	}

	/** The scenarios side by side have ended: deactivates what they activated. */
	async sideBySideEnded(): Promise<void> {
		const activated = this.#sideBySide ?? new Set<string>();
		this.#sideBySide = undefined;
		for (const workflowId of activated) await this.deactivate(workflowId);
	}

	/** A test starts (the suite's beforeEach): what it activates is deactivated after it. */
	testStarts(): void {
		this.#inTest = true;
	}

	/** A test has ended (the suite's afterEach): deactivates what it left active. */
	async testEnded(): Promise<void> {
		this.#inTest = false;
		for (const workflowId of [...this.#active]) await this.deactivate(workflowId);
	}

	/** Activates a trigger workflow: published, and its endpoint registered in the API. */
	async activateTrigger(workflowId: string, org: string, webhookUrl: string): Promise<void> {
		await this.activate(workflowId);
		await eventually(
			async () => (await this.endpointsOf(org)).some((endpoint) => endpoint.url === webhookUrl),
			'the trigger to register its endpoint',
			patiently(60_000, this.n8n.log),
		);
	}

	/** Stores a trigger workflow (its Training Lab Trigger first) and activates it; returns its id. */
	async createTrigger(workflow: { nodes: object[] }, org: string): Promise<string> {
		const id = await this.create(workflow);
		await this.activateTrigger(id, org, this.webhookUrlOf(workflow));
		return id;
	}

	/** Deactivates a workflow now. */
	async deactivate(workflowId: string): Promise<void> {
		this.#active.delete(workflowId);
		await this.client.api('POST', `/workflows/${workflowId}/deactivate`);
	}

	/** Deactivates a trigger workflow and waits until its endpoint (registered for `webhookUrl`) is held. */
	async deactivateTrigger(workflowId: string, org: string, webhookUrl: string): Promise<void> {
		await this.deactivate(workflowId);
		await eventually(
			async () =>
				(await this.endpointsOf(org)).some(
					(endpoint) => endpoint.url === webhookUrl && endpoint.held_since !== null,
				),
			'the endpoint to be held',
			patiently(30_000, this.n8n.log),
		);
	}

	/** The endpoint of the organization registered for `webhookUrl`. */
	async endpointFor(org: string, webhookUrl: string): Promise<Endpoint> {
		const endpoint = (await this.endpointsOf(org)).find((e) => e.url === webhookUrl);
		if (!endpoint) throw new Error(`no endpoint of ${org} for ${webhookUrl}`);
		return endpoint;
	}

	/** The items a node of an execution output (its first run, first output). */
	nodeOutput(execution: { data: any }, node: string): any[] {
		return (execution.data.resultData.runData[node]?.[0]?.data?.main?.[0] ?? []).map(
			(item: { json: unknown }) => item.json,
		);
	}

	/** The process that ran an execution: a worker whose log says it started it, or else main. */
	executedBy(executionId: string): string {
		const worker = Object.entries(this.n8n.workerLogs).find(([, log]) =>
			readFileSync(log, 'utf8').includes(`Worker started execution ${executionId} (`),
		);
		return worker?.[0] ?? 'main';
	}

	/** POSTs `body` (JSON) to a workflow's webhook at `path`, again until n8n has registered it. */
	async postToWebhook(path: string, body: object = {}): Promise<void> {
		const url = `${this.n8n.webhookBase}/webhook/${path}`;
		const request = {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(body),
		};
		await eventually(
			async () => (await fetch(url, request)).ok,
			'the webhook to be registered',
			patiently(60_000, this.n8n.log),
		);
	}

	/** n8n's Stop of an execution, as a person does it from the executions list. */
	async stopByHand(executionId: string): Promise<void> {
		await this.client.rest('POST', `/rest/executions/${executionId}/stop`);
	}

	/** n8n's retry of an execution, as a person does it from the executions list. */
	async retryByHand(executionId: string): Promise<void> {
		if (this.traits.retry === 'public-api')
			await this.client.api('POST', `/executions/${executionId}/retry`, { loadWorkflow: false });
		else
			await this.client.rest('POST', `/rest/executions/${executionId}/retry`, {
				loadWorkflow: false,
			});
	}

	/** Waits for the workflow's executions until `done` holds for them; returns them. */
	executions(
		workflowId: string,
		done: (executions: Execution[]) => boolean,
		what = 'the executions',
		timeoutMs = 120_000,
	): Promise<Execution[]> {
		return eventually(
			async () => {
				const executions = await this.client.executions(workflowId);
				return done(executions) && executions;
			},
			what,
			patiently(timeoutMs, this.n8n.log),
		);
	}

	/**
	 * Waits for the first execution of a workflow to succeed and checks it ran where the topology runs
	 * executions (a worker in queue mode).
	 */
	async firstExecution(workflowId: string, timeoutMs: number): Promise<Execution> {
		const [execution] = await this.executions(
			workflowId,
			(all) => all.length > 0 && all[0].status === 'success',
			'the execution',
			timeoutMs,
		);
		expect(this.topology.executors).toContain(this.executedBy(execution.id));
		return execution;
	}

	/** Waits until the workflow has `count` successful executions; returns them. */
	async successfulExecutions(workflowId: string, count: number): Promise<Execution[]> {
		const all = await this.executions(
			workflowId,
			(executions) => executions.filter((e) => e.status === 'success').length >= count,
			'a successful execution per removal',
			300_000,
		);
		return all.filter((e) => e.status === 'success');
	}

	/** A workflow of one Activity Trigger polling every minute (n8n polls at most once a minute). */
	activityWorkflow(name: string, credentialId: string, events: string[]) {
		return {
			name,
			nodes: [
				{
					id: randomUUID(),
					name: 'Activity',
					type: NODE_TYPE.trainingLabActivityTrigger,
					typeVersion: 1,
					position: [0, 0],
					parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, events },
					credentials: { trainingLabApi: { id: credentialId, name } },
				},
			],
			connections: {},
			settings: { executionOrder: 'v1' },
		};
	}

	async endpointsOf(org: string): Promise<Endpoint[]> {
		const { client, org: of } = this.org(org);
		return (await client.getAll(`/orgs/${of.id}/webhooks`)).items;
	}

	/**
	 * Waits until the trigger `triggerName` of the workflow keeps, in the static data n8n stored, the
	 * endpoint's current signing secret (read from the API server's database): each activation gives
	 * the endpoint a new one, and the old one is accepted for an hour only.
	 */
	async triggerKeepsCurrentSecret(workflowId: string, triggerName = 'Member removed') {
		await eventually(
			async () => {
				const stored = await this.client.api<{
					staticData?: Record<string, { webhookId?: string; webhookSecret?: string }>;
				}>('GET', `/workflows/${workflowId}`);
				const kept = stored.staticData?.[`node:${triggerName}`];
				if (!kept?.webhookId) return false;
				const db = new Database(this.databasePath, { readonly: true });
				try {
					const row = db.prepare('SELECT secret FROM webhooks WHERE id = ?').get(kept.webhookId);
					return (row as { secret: string } | undefined)?.secret === kept.webhookSecret;
				} finally {
					db.close();
				}
			},
			"the trigger's static data to hold its endpoint's current secret",
			patiently(60_000, this.n8n.log),
		);
	}

	/**
	 * The deliveries to the organization's endpoints that are not held, read from the API server's
	 * database (a closed org cannot ask). A workflow deactivated after an earlier test holds its
	 * endpoint, which keeps the organization's later events for it.
	 */
	deliveriesOf(org: string): Delivery[] {
		const db = new Database(this.databasePath, { readonly: true });
		try {
			return db
				.prepare(
					`SELECT d.event_id, d.status, d.attempts, d.last_status_code, d.last_error
					 FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
					 WHERE w.org_id = ? AND w.held_since IS NULL`,
				)
				.all(this.org(org).org.id) as Delivery[];
		} finally {
			db.close();
		}
	}

	/**
	 * How many attempts to the organization's endpoints were answered 2xx without the trigger's
	 * receipt (n8n answering while it starts), each counted as failed and retried.
	 */
	attemptsAnsweredWithoutReceipt(org: string): number {
		const db = new Database(this.databasePath, { readonly: true });
		try {
			return db
				.prepare(
					`SELECT count(*) FROM webhook_delivery_attempts a
					 JOIN webhook_deliveries d ON d.seq = a.delivery_seq JOIN webhooks w ON w.id = d.webhook_id
					 WHERE w.org_id = ? AND a.status_code BETWEEN 200 AND 299 AND a.error IS NOT NULL`,
				)
				.pluck()
				.get(this.org(org).org.id) as number;
		} finally {
			db.close();
		}
	}

	/**
	 * Waits until every delivery to the organization's endpoints is final and succeeded: with nothing
	 * pending or to be retried, no further execution can be started by them.
	 */
	async deliveriesSettled(org: string, timeoutMs = 60_000): Promise<Delivery[]> {
		return eventually(
			async () => {
				const deliveries = this.deliveriesOf(org);
				return (
					deliveries.length > 0 && deliveries.every((d) => d.status === 'succeeded') && deliveries
				);
			},
			'every delivery to be final',
			patiently(timeoutMs, this.n8n.log, () =>
				JSON.stringify(this.deliveriesOf(org).filter((d) => d.status !== 'succeeded')),
			),
		);
	}

	/** Adds `count` trainers to the organization `org`, one after another. */
	async addTrainers(
		org: string,
		count: number,
	): Promise<Array<{ user_id: string; email: string }>> {
		const { client, org: of } = this.org(org);
		const members = [];
		for (let i = 0; i < count; i++)
			members.push(
				(
					await client.post(`/orgs/${of.id}/members`, {
						email: `${org}-${i}@e2e.test`,
						name: `${org[0].toUpperCase()}${org.slice(1)} ${i}`,
						role: 'trainer',
					})
				).body,
			);
		return members;
	}

	/**
	 * An active copy of examples/react-to-member-removal.json on its own webhook path, for the
	 * organization `org`, which ends by posting each notice to the `notices` receiver (`noticesSent`);
	 * `adjust` changes the example first. Returns the workflow's id.
	 */
	async memberRemovalTrigger(org: string, adjust?: (workflow: any) => void): Promise<string> {
		const workflow = this.memberRemovalWorkflow(org, await this.credentialOf(org), adjust);
		return this.createTrigger(workflow, org);
	}

	/** The workflow `memberRemovalTrigger` activates, with the credential `credentialId`, on a path of its own. */
	memberRemovalWorkflow(org: string, credentialId: string, adjust?: (workflow: any) => void) {
		const workflow = example('react-to-member-removal', { YOUR_CREDENTIAL_ID: credentialId });
		workflow.nodes[0].webhookId = randomUUID();
		adjust?.(workflow);
		// The notice leaves n8n: an event run twice under one execution id shows here, not in n8n's list.
		workflow.nodes.push(this.noticeNode(org, 'user_id', '={{ $json.user_id }}', 330));
		workflow.connections['Offboarding notice'] = {
			main: [[{ node: 'Send notice', type: 'main', index: 0 }]],
		};
		return workflow;
	}

	/** Where n8n serves a workflow's Training Lab Trigger (its first node). */
	webhookUrlOf(workflow: { nodes: object[] }): string {
		const { webhookId } = workflow.nodes[0] as { webhookId?: string };
		return `${this.n8n.webhookBase}/webhook/${webhookId}/webhook`;
	}

	/**
	 * Adjusts the member-removal example: Acknowledge Deliveries "when the workflow has finished", and
	 * a pause of `seconds` before the notice, so that executions are running when a part goes down.
	 */
	answeredWhenFinished(seconds: number) {
		return (workflow: any) => {
			workflow.nodes[0].parameters.acknowledge = 'whenFinished';
			workflow.nodes.push(
				workflowNode('Pause', 'n8n-nodes-base.wait', 110, {
					typeVersion: 1.1,
					parameters: { resume: 'timeInterval', amount: seconds, unit: 'seconds' },
				}),
			);
			workflow.connections = {
				'Member removed': { main: [[{ node: 'Pause', type: 'main', index: 0 }]] },
				Pause: { main: [[{ node: 'Offboarding notice', type: 'main', index: 0 }]] },
			};
		};
	}

	/** A node named "Send notice" that posts `{ [field]: value }` to the `notices` receiver at `/<path>`. */
	noticeNode(path: string, field: string, value: string, x: number) {
		return workflowNode('Send notice', 'n8n-nodes-base.httpRequest', x, {
			typeVersion: 4.2,
			parameters: {
				method: 'POST',
				url: `${this.notices.url}/${path}`,
				sendBody: true,
				bodyParameters: { parameters: [{ name: field, value }] },
				options: {},
			},
		});
	}

	/** The `field` of every notice posted to `/<path>` (see `noticeNode`), once per notice, sorted. */
	noticesSent(path: string, field = 'user_id'): string[] {
		return this.notices
			.at(`/${path}`)
			.map((notice) => (JSON.parse(notice.body) as Record<string, string>)[field])
			.sort();
	}

	/**
	 * The notices of the member-removal trigger workflow `workflowId` of the organization `org` (see
	 * `memberRemovalTrigger`), once every member of `removed` has one, every delivery is final and
	 * no execution of the workflow runs any more: a repeat would show here.
	 */
	async noticesOnceSettled(org: string, workflowId: string, removed: string[]): Promise<string[]> {
		await eventually(
			() => removed.every((id) => this.noticesSent(org).includes(id)),
			`a notice for each of ${removed.length} removals`,
			patiently(240_000, this.n8n.log),
		);
		await this.deliveriesSettled(org, 120_000);
		await eventually(
			async () => (await this.client.runningExecutions(workflowId)).length === 0,
			'every execution to end',
			patiently(120_000, this.n8n.log),
		);
		return this.noticesSent(org);
	}

	/** The members the successful executions of the member-removal example notified, sorted. */
	notifiedMembers(executions: Array<{ status: string; data: any }>): string[] {
		return executions
			.filter((execution) => execution.status === 'success')
			.flatMap((execution) => this.nodeOutput(execution, 'Offboarding notice'))
			.map((item) => item.user_id)
			.sort();
	}

	/**
	 * Runs a schedule-triggered workflow for real, once: its Monday schedule is replaced by a one-off
	 * time 10 seconds ahead (cron with seconds, in UTC), the workflow is activated, the execution
	 * awaited, and the workflow deactivated again.
	 */
	async runOnSchedule(workflow: any, workflowId: string): Promise<Execution> {
		const at = new Date(Date.now() + 10_000);
		const cron = `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} ${at.getUTCDate()} ${at.getUTCMonth() + 1} *`;
		workflow.nodes[0].parameters.rule = {
			interval: [{ field: 'cronExpression', expression: cron }],
		};
		workflow.settings = { ...workflow.settings, timezone: 'UTC' };
		await this.client.api('PUT', `/workflows/${workflowId}`, {
			name: workflow.name,
			nodes: workflow.nodes,
			connections: workflow.connections,
			settings: workflow.settings,
		});
		const before = new Set(
			(await this.client.executions(workflowId)).map((execution) => execution.id),
		);
		await this.activate(workflowId);
		try {
			return await eventually(
				async () => {
					const found = (await this.client.executions(workflowId)).find((e) => !before.has(e.id));
					return found && !['new', 'running', 'waiting'].includes(found.status) && found;
				},
				'the scheduled execution to finish',
				patiently(8 * 60_000, this.n8n.log),
			);
		} finally {
			await this.deactivate(workflowId);
		}
	}
}
