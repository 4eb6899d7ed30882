import { eventually } from '../../../tooling/eventually';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { HookContext, WebhookContext } from 'n8n-core';
import {
	Workflow,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type INodeParameters,
	type IWebhookData,
	type IWorkflowExecuteAdditionalData,
	type WorkflowActivateMode,
} from 'n8n-workflow';
import { TrainingLabTrigger } from '../../../nodes/TrainingLabTrigger/TrainingLabTrigger.node';
import { credentialsHelper } from '../../support/n8n';
import { NODE_TYPE } from '../../../tooling/root';

const trigger = new TrainingLabTrigger();
type Method = 'checkExists' | 'create' | 'delete';

export interface Delivery {
	status: number;
	/** The `webhook-receipt` the answer carried. */
	receipt: string | undefined;
	/** Items the trigger emitted, i.e. the workflow was started with them; empty when it was not. */
	items: INodeExecutionData[];
}

/**
 * n8n's side of a Training Lab Trigger: a workflow holding the node (with its static data),
 * activation and deactivation through the node's webhook methods, and an HTTP endpoint that hands
 * each request to the node's webhook() the way n8n does (JSON body parsed, raw body kept).
 */
export class TriggerHarness {
	readonly deliveries: Delivery[] = [];
	readonly staticData: IDataObject = {};
	url = '';
	#server: Server;
	#events: string[];
	#credentials: { baseUrl: string; apiKey: string };

	private constructor(credentials: { baseUrl: string; apiKey: string }, events: string[]) {
		this.#credentials = credentials;
		this.#events = events;
		const app = express();
		app.use(
			express.json({
				verify: (req, _res, raw) => ((req as unknown as { rawBody: Buffer }).rawBody = raw),
			}),
		);
		app.post('/{*path}', (req, res) => {
			this.#deliver(req, res).catch((error: unknown) =>
				res.status(500).json({ error: String(error) }),
			);
		});
		this.#server = createServer(app);
	}

	/** A trigger of workflow `workflowId` (another id: another workflow's trigger). */
	static async start(
		credentials: { baseUrl: string; apiKey: string },
		events: string[],
		workflowId = 'trigger-workflow',
	): Promise<TriggerHarness> {
		const harness = new TriggerHarness(credentials, events);
		harness.#workflowId = workflowId;
		await new Promise<void>((resolve) => harness.#server.listen(0, '127.0.0.1', resolve));
		harness.url = `http://127.0.0.1:${(harness.#server.address() as AddressInfo).port}/`;
		return harness;
	}

	/**
	 * When set, the workflows the trigger starts end when it settles, with the status n8n then
	 * answers the delivery with; by default they end at once, with 200.
	 */
	workflowRun: Promise<200 | 500> | undefined;
	/** Workflows started and not ended yet. */
	pendingRuns = 0;
	#workflowId = 'trigger-workflow';

	set events(events: string[]) {
		this.#events = events;
	}

	/** The trigger's other parameters (Acknowledge Deliveries and the like). */
	options: INodeParameters = {};

	/** The node's version in the workflow (a workflow saved with an older one keeps it). */
	typeVersion = 1.1;

	/**
	 * As n8n's editor listening for a test event (Listen for Test Event): the trigger's methods and
	 * deliveries run in mode `manual`, at the test URL (`/webhook-test/…`).
	 */
	listening = false;

	/** The URL n8n serves the trigger at, as registered with the API. */
	get webhookUrl(): string {
		return `${this.url}${this.listening ? 'webhook-test' : 'webhook'}/${this.#node().webhookId}/webhook`;
	}

	/**
	 * What n8n does on activation (`activate`), and on publishing or saving an active workflow
	 * (`update`): create the endpoint unless checkExists says it is there.
	 */
	async activate(activation: WorkflowActivateMode = 'activate'): Promise<void> {
		if (!(await this.run('checkExists', activation))) await this.run('create', activation);
	}

	/** What n8n does on deactivation, and before it adds the trigger again when it saves the workflow. */
	async deactivate(): Promise<boolean> {
		return await this.run('delete', 'update');
	}

	/** Saving or publishing an active workflow as n8n 1.x and 2.6 do: the trigger removed and added. */
	async save(): Promise<void> {
		await this.deactivate();
		await this.activate('update');
	}

	async run(method: Method, activation: WorkflowActivateMode = 'activate'): Promise<boolean> {
		const { workflow, node, additionalData } = this.#setup();
		const context = new HookContext(
			workflow,
			node,
			additionalData,
			// n8n removes a trigger's webhooks in mode `internal`, the test URL's too.
			method === 'delete' ? 'internal' : this.listening ? 'manual' : 'trigger',
			this.listening ? 'manual' : activation,
			this.#webhookData(workflow, node, additionalData),
		);
		return await trigger.webhookMethods.default[method].call(context);
	}

	/** Waits until `count` deliveries reached the trigger. */
	async waitForDeliveries(count: number, timeoutMs = 10_000): Promise<Delivery[]> {
		await eventually(
			() => this.deliveries.length >= count,
			`${count} deliveries (${this.deliveries.length} arrived)`,
			{ timeoutMs },
		);
		return this.deliveries;
	}

	async stop(): Promise<void> {
		this.#server.closeAllConnections();
		await new Promise((resolve) => this.#server.close(resolve));
	}

	async #deliver(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const { workflow, node } = this.#setup();
		const additionalData = {
			...this.#setup().additionalData,
			httpRequest: req,
			httpResponse: res,
		} as IWorkflowExecuteAdditionalData;
		const context = new WebhookContext(
			workflow,
			node,
			additionalData,
			this.listening ? 'manual' : 'webhook',
			this.#webhookData(workflow, node, additionalData),
			[],
			null,
		);
		const result = await trigger.webhook.call(context);
		const items = result.workflowData?.[0] ?? [];
		if (!result.noWebhookResponse) {
			// n8n answers once the workflow has finished: 200, or 500 when it failed.
			this.pendingRuns++;
			const status = await (this.workflowRun ?? Promise.resolve(200));
			this.pendingRuns--;
			(res as express.Response).status(status).json({});
		}
		const receipt = res.getHeader('webhook-receipt');
		this.deliveries.push({
			status: res.statusCode,
			receipt: typeof receipt === 'string' ? receipt : undefined,
			items,
		});
	}

	#node(): INode {
		return {
			id: '7d2f8a4e-1b1f-4c07-8a41-0c2a3c5f9e11',
			name: 'Training Lab Trigger',
			type: NODE_TYPE.trainingLabTrigger,
			typeVersion: this.typeVersion,
			position: [0, 0],
			webhookId: 'f1d2c3b4-a5e6-4f70-8192-a3b4c5d6e7f8',
			parameters: { ...this.options, events: this.#events },
			credentials: { trainingLabApi: { id: '1', name: 'Training Lab account' } },
		};
	}

	#setup() {
		const node = this.#node();
		const nodeTypes = {
			getByName: () => trigger,
			getByNameAndVersion: () => trigger,
			getKnownTypes: () => ({}),
		};
		const workflow = new Workflow({
			id: this.#workflowId,
			name: 'Member offboarding',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes,
			staticData: { [`node:${node.name}`]: this.staticData },
		});
		credentialsHelper.setCredentials({ trainingLabApi: this.#credentials });
		const additionalData = {
			credentialsHelper,
			variables: {},
			currentNodeExecutionIndex: 0,
			webhookBaseUrl: `${this.url}webhook`,
			webhookTestBaseUrl: `${this.url}webhook-test`,
		} as unknown as IWorkflowExecuteAdditionalData;
		return { workflow, node, additionalData };
	}

	#webhookData(
		workflow: Workflow,
		node: INode,
		additionalData: IWorkflowExecuteAdditionalData,
	): IWebhookData {
		return {
			httpMethod: 'POST',
			node: node.name,
			path: `${node.webhookId}/webhook`,
			webhookDescription: trigger.description.webhooks![0],
			workflowId: workflow.id,
			workflowExecuteAdditionalData: additionalData,
			webhookId: node.webhookId,
			isTest: this.listening,
		};
	}
}
