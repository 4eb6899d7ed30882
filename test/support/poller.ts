import { randomUUID } from 'node:crypto';
import { PollContext } from 'n8n-core';
import {
	Workflow,
	type IDataObject,
	type INode,
	type INodeParameters,
	type IPollFunctions,
	type IWorkflowExecuteAdditionalData,
	type WorkflowExecuteMode,
} from 'n8n-workflow';
import { TrainingLabActivityTrigger } from '../../nodes/TrainingLabActivityTrigger/TrainingLabActivityTrigger.node';
import { credentialsHelper, onlyNodeType } from './n8n';
import { NODE_TYPE } from '../../tooling/root';

const trigger = new TrainingLabActivityTrigger();

/** An execution the trigger started: the items it got, and a way to end it (as n8n does when it finishes). */
export interface Execution {
	items: IDataObject[];
	end(): void;
	/** n8n could not run it (the promise of its end rejected). */
	fail(): void;
}

/**
 * n8n's side of a polling trigger: a workflow holding the node and its static data, polled through
 * n8n-core, with the executions it starts. n8n stores the static data when the trigger starts an
 * execution, and only then: `stored` is what n8n reads back when it registers the poller again (a
 * save on n8n 1.x and 2.6) or starts again. Each poller is a workflow of its own.
 */
export class Poller {
	readonly staticData: IDataObject;
	stored: IDataObject = {};
	credentials: { baseUrl: string; apiKey: string };
	readonly executions: Execution[] = [];
	/** Executions end as soon as they start; false: they run until a test ends them (or n8n dies). */
	endAtOnce = true;
	readonly workflowId: string;
	#parameters: INodeParameters;
	#nodeType: TrainingLabActivityTrigger;

	constructor(
		credentials: { baseUrl: string; apiKey: string },
		parameters: INodeParameters,
		staticData: IDataObject = {},
		nodeType = trigger,
		workflowId = `poll-${randomUUID()}`,
	) {
		this.credentials = credentials;
		this.#parameters = parameters;
		this.staticData = staticData;
		this.#nodeType = nodeType;
		this.workflowId = workflowId;
	}

	/** The items of the executions this poll started, in order (or what Fetch Test Event returns); null: none. */
	async poll(mode: WorkflowExecuteMode = 'trigger'): Promise<IDataObject[] | null> {
		const node: INode = {
			id: '4b7c9d2e-2a31-4f5e-9c0d-7e8f9a0b1c2d',
			name: 'Training Lab Activity Trigger',
			type: NODE_TYPE.trainingLabActivityTrigger,
			typeVersion: 1,
			position: [0, 0],
			parameters: this.#parameters,
			credentials: { trainingLabApi: { id: '1', name: 'Training Lab account' } },
		};
		const workflow = new Workflow({
			id: this.workflowId,
			name: 'Activity',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes: onlyNodeType(this.#nodeType),
			staticData: { [`node:${node.name}`]: this.staticData },
		});
		credentialsHelper.setCredentials({ trainingLabApi: this.credentials });
		const additionalData = {
			credentialsHelper,
			variables: {},
			currentNodeExecutionIndex: 0,
		} as unknown as IWorkflowExecuteAdditionalData;
		const started: IDataObject[] = [];
		const emit: IPollFunctions['__emit'] = (data, _response, done) => {
			this.stored = JSON.parse(JSON.stringify(this.staticData));
			// n8n hands the items to its expression isolate and task runner, which copy them as data.
			const items = structuredClone(data[0].map((item) => item.json));
			started.push(...items);
			const execution = {
				items,
				end: () => done?.resolve(undefined),
				fail: () => done?.reject(new Error('could not run')),
			};
			this.executions.push(execution);
			if (this.endAtOnce) execution.end();
		};
		const context = new PollContext(
			workflow,
			node,
			additionalData,
			mode,
			'activate',
			emit,
			() => {},
		);
		const result = await this.#nodeType.poll.call(context);
		if (result !== null) return result[0].map((item) => item.json);
		return started.length > 0 ? started : null;
	}

	/**
	 * The workflow saved while active, as n8n 1.x and 2.6 do it: the same process registers the
	 * poller again from the static data it stored. Executions still running go on.
	 */
	saved(): Poller {
		return this.#withStoredData(this.#nodeType);
	}

	/** n8n started again after it stopped: a new process, which reads back the static data n8n stored. */
	restarted(): Poller {
		let fresh!: typeof TrainingLabActivityTrigger;
		jest.isolateModules(() => {
			fresh = jest.requireActual<{ TrainingLabActivityTrigger: typeof TrainingLabActivityTrigger }>(
				'../../nodes/TrainingLabActivityTrigger/TrainingLabActivityTrigger.node',
			).TrainingLabActivityTrigger;
		});
		return this.#withStoredData(new fresh());
	}

	#withStoredData(nodeType: TrainingLabActivityTrigger): Poller {
		const poller = new Poller(
			this.credentials,
			this.#parameters,
			JSON.parse(JSON.stringify(this.stored)),
			nodeType,
			this.workflowId,
		);
		poller.stored = JSON.parse(JSON.stringify(this.stored));
		return poller;
	}
}
