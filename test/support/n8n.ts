import { randomUUID } from 'node:crypto';
import { ExecutionLifecycleHooks, LoadOptionsContext, WorkflowExecute } from 'n8n-core';
import {
	Workflow,
	type IConnections,
	type IDataObject,
	type INode,
	type INodeExecutionData,
	type INodeListSearchResult,
	type INodeParameters,
	type INodeType,
	type INodeTypes,
	type IExecuteFunctions,
	type IRun,
	type IRunExecutionData,
	type IWorkflowExecuteAdditionalData,
	type WorkflowExecuteMode,
} from 'n8n-workflow';
import { TrainingLabApi } from '../../credentials/TrainingLabApi.credentials';
import { TrainingLab } from '../../nodes/TrainingLab/TrainingLab.node';
import { TrainingLabTrigger } from '../../nodes/TrainingLabTrigger/TrainingLabTrigger.node';
import { TrainingLabActivityTrigger } from '../../nodes/TrainingLabActivityTrigger/TrainingLabActivityTrigger.node';
import { InMemoryCredentialsHelper } from './credentials-helper';
import { NODE_TYPE } from '../../tooling/root';

const trainingLab = new TrainingLab();
const NODE_TYPES: Record<string, INodeType> = {
	[NODE_TYPE.trainingLab]: trainingLab,
	[NODE_TYPE.trainingLabTrigger]: new TrainingLabTrigger(),
	[NODE_TYPE.trainingLabActivityTrigger]: new TrainingLabActivityTrigger(),
};

/** The package's node types, looked up by n8n's engine the way n8n looks up installed community nodes. */
export const nodeTypes: INodeTypes = {
	getByName: (type) => lookup(type),
	getByNameAndVersion: (type) => lookup(type),
	getKnownTypes: () => ({}),
};

function lookup(type: string): INodeType {
	const node = NODE_TYPES[type] ?? STAND_INS[type];
	if (!node) throw new Error(`Unknown node type ${type}`);
	return node;
}

/** A registry holding one node type, for a workflow made of that node alone. */
export function onlyNodeType(nodeType: INodeType): INodeTypes {
	return {
		getByName: () => nodeType,
		getByNameAndVersion: () => nodeType,
		getKnownTypes: () => ({}),
	};
}

export const credentialsHelper = new InMemoryCredentialsHelper([new TrainingLabApi()]);

export interface NodeRun {
	/** Output items of the Training Lab node (first output). */
	items: INodeExecutionData[];
	/** Items on the node's error output (only with On Error: Continue (using error output)). */
	errorItems: INodeExecutionData[];
	/** The node's error when the execution failed. */
	error?: Error & { httpCode?: string | null; description?: string | null; context?: IDataObject };
	run: IRun;
	executionId: string;
}

export interface RunOptions {
	credentials: { baseUrl: string; apiKey: string };
	/** Input items of the node (default: one empty item). */
	input?: IDataObject[];
	/** Node settings such as onError, continueOnFail, retryOnFail, maxTries, waitBetweenTries. */
	settings?: Partial<
		Pick<INode, 'onError' | 'continueOnFail' | 'retryOnFail' | 'maxTries' | 'waitBetweenTries'>
	>;
	/** Reuse an execution id, as n8n does when it runs a node again within the same execution. */
	executionId?: string;
	/** The workflow's timezone (default UTC). */
	timezone?: string;
	/**
	 * Run data to go on from, as n8n does when a node runs again later in the same execution (a loop)
	 * or when it retries a failed execution (see `loopAgain` and `retryExecution`).
	 */
	startFrom?: { data: IRunExecutionData; mode: WorkflowExecuteMode };
	/**
	 * The execution is started by a Training Lab trigger with these event items (as n8n starts a
	 * webhook or poll execution: the trigger's items on the stack), which reach the Training Lab
	 * node directly or through `through`, a stand-in for a user's node in between (STAND_INS).
	 */
	startedBy?: {
		trigger: 'trainingLabTrigger' | 'trainingLabActivityTrigger';
		events: IDataObject[];
		through?: keyof typeof STAND_INS;
	};
}

/**
 * Stand-ins for n8n's own nodes (not installed here) between a trigger and the Training Lab node:
 * `fanOut` makes one item per entry of the item's `rows`, paired with it, as Split Out does;
 * `dropLineage` passes the items on without paired-item data, as a Code node may.
 */
const STAND_INS = {
	'test.fanOut': {
		description: { name: 'fanOut', inputs: ['main'], outputs: ['main'], properties: [] },
		async execute(this: IExecuteFunctions) {
			return [
				this.getInputData().flatMap((item, index) =>
					(item.json.rows as IDataObject[]).map((row) => ({
						json: row,
						pairedItem: { item: index },
					})),
				),
			];
		},
	},
	'test.dropLineage': {
		description: { name: 'dropLineage', inputs: ['main'], outputs: ['main'], properties: [] },
		async execute(this: IExecuteFunctions) {
			return [this.getInputData().map((item) => ({ json: item.json, pairedItem: { item: 99 } }))];
		},
	},
} as unknown as Record<string, INodeType>;

function trainingLabNode(
	parameters: INodeParameters,
	settings: RunOptions['settings'] = {},
): INode {
	return {
		id: 'b2c1e1b4-2b45-4f4a-9d57-4f2a7c6c2a10',
		name: 'Training Lab',
		type: NODE_TYPE.trainingLab,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { trainingLabApi: { id: '1', name: 'Training Lab account' } },
		...settings,
	};
}

export function additionalDataFor(
	executionId: string,
	extra: Partial<IWorkflowExecuteAdditionalData> = {},
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper,
		executionId,
		variables: {},
		restApiUrl: 'http://localhost/rest',
		instanceBaseUrl: 'http://localhost/',
		webhookBaseUrl: 'http://localhost/webhook',
		webhookWaitingBaseUrl: 'http://localhost/webhook-waiting',
		webhookTestBaseUrl: 'http://localhost/webhook-test',
		formBaseUrl: 'http://localhost/form',
		formWaitingBaseUrl: 'http://localhost/form-waiting',
		formTestBaseUrl: 'http://localhost/form-test',
		mcpBaseUrl: 'http://localhost/mcp',
		mcpTestBaseUrl: 'http://localhost/mcp-test',
		currentNodeExecutionIndex: 0,
		logAiEvent: () => {},
		...extra,
	} as unknown as IWorkflowExecuteAdditionalData;
}

/** Calls one of the node's pickers (listSearch methods) the way the n8n editor does. */
export async function searchList(
	method: string,
	options: {
		credentials: RunOptions['credentials'];
		parameters?: INodeParameters;
		filter?: string;
		paginationToken?: string;
	},
): Promise<INodeListSearchResult> {
	const node = trainingLabNode(options.parameters ?? {});
	const workflow = new Workflow({
		id: 'test-workflow',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes,
	});
	credentialsHelper.setCredentials({ trainingLabApi: options.credentials });
	const additionalData = additionalDataFor(randomUUID(), {
		currentNodeParameters: node.parameters,
	});
	const context = new LoadOptionsContext(workflow, node, additionalData, 'parameters');
	return await trainingLab.methods.listSearch[
		method as keyof typeof trainingLab.methods.listSearch
	].call(context, options.filter, options.paginationToken);
}

/** Executes a workflow holding one Training Lab node through n8n-core's WorkflowExecute. */
export async function runTrainingLab(
	parameters: INodeParameters,
	options: RunOptions,
): Promise<NodeRun> {
	const node = trainingLabNode(parameters, options.settings);
	const { nodes, connections, first } = workflowAround(node, options.startedBy);
	const settings = { timezone: options.timezone ?? 'UTC' };
	const workflow = new Workflow({
		id: 'test-workflow',
		nodes,
		connections,
		active: false,
		nodeTypes,
		settings,
	});
	credentialsHelper.setCredentials({ trainingLabApi: options.credentials });

	const executionId = options.executionId ?? randomUUID();
	const mode = options.startFrom?.mode ?? (options.startedBy ? 'webhook' : 'manual');
	const hooks = new ExecutionLifecycleHooks(mode, executionId, {
		id: workflow.id,
		name: 'test',
		nodes,
		connections,
	} as never);
	const finished = Promise.withResolvers<IRun>();
	hooks.addHandler('workflowExecuteAfter', (run) => finished.resolve(run));
	const additionalData = additionalDataFor(executionId, { hooks });

	const input = (options.startedBy?.events ?? options.input ?? [{}]).map((json) => ({ json }));
	const runExecutionData =
		options.startFrom?.data ??
		({
			version: 1,
			resultData: { runData: {} },
			executionData: {
				contextData: {},
				metadata: {},
				nodeExecutionStack: [{ node: first, data: { main: [input] }, source: null }],
				waitingExecution: {},
				waitingExecutionSource: {},
			},
		} as unknown as IRunExecutionData);
	const stack = runExecutionData.executionData!.nodeExecutionStack;
	if (stack.length === 0) stack.push({ node: first, data: { main: [input] }, source: null });

	await new WorkflowExecute(additionalData, mode, runExecutionData).processRunExecutionData(
		workflow,
	);
	const run = await finished.promise;
	const taskData = run.data.resultData.runData[node.name]?.at(-1);
	return {
		items: taskData?.data?.main?.[0] ?? [],
		errorItems: taskData?.data?.main?.[1] ?? [],
		error: (run.data.resultData.error ?? taskData?.error) as NodeRun['error'],
		run,
		executionId,
	};
}

/** The workflow's nodes: the Training Lab node alone, or behind a trigger (and a node in between). */
function workflowAround(
	node: INode,
	startedBy: RunOptions['startedBy'],
): { nodes: INode[]; connections: IConnections; first: INode } {
	if (!startedBy) return { nodes: [node], connections: {}, first: node };
	const upstream: INode[] = [
		{
			id: '7f0c7a52-5d2c-4c55-8f43-1c2d3e4f5a60',
			name: startedBy.trigger === 'trainingLabTrigger' ? 'Member removed' : 'Activity',
			type: NODE_TYPE[startedBy.trigger],
			typeVersion: 1,
			position: [-400, 0],
			parameters: {},
			credentials: node.credentials,
		},
	];
	if (startedBy.through)
		upstream.push({
			id: '0d9b8e7a-3c1f-4b2a-9e8d-7c6b5a493827',
			name: 'In between',
			type: startedBy.through,
			typeVersion: 1,
			position: [-200, 0],
			parameters: {},
		});
	const nodes = [...upstream, node];
	const connections: IConnections = {};
	for (let index = 1; index < nodes.length; index++)
		connections[nodes[index - 1].name] = {
			main: [[{ node: nodes[index].name, type: 'main', index: 0 }]],
		};
	return { nodes, connections, first: nodes[0] };
}

/**
 * The run data of n8n's retry by hand of an execution that crashed: starting up again, n8n marks
 * each node its event log says had run with one artificial item (ExecutionRecoveryService), and the
 * retry runs the workflow from its trigger after them, so each node's real run comes second.
 */
export function retryAfterCrash(nodesThatHadRun: string[]): RunOptions['startFrom'] {
	const artificialRun = {
		startTime: 0,
		executionIndex: 0,
		executionTime: 0,
		source: [null],
		executionStatus: 'success',
		data: { main: [[{ json: { isArtificialRecoveredEventItem: true } }]] },
	};
	return {
		mode: 'retry',
		data: {
			version: 1,
			resultData: {
				runData: Object.fromEntries(nodesThatHadRun.map((name) => [name, [artificialRun]])),
				lastNodeExecuted: nodesThatHadRun.at(-1),
			},
			executionData: {
				contextData: {},
				metadata: {},
				nodeExecutionStack: [],
				waitingExecution: {},
				waitingExecutionSource: {},
			},
		} as unknown as IRunExecutionData,
	};
}

/**
 * The run data with which the node runs once more in the same execution with the same input, as it
 * does in a loop: n8n puts it back on the execution stack, and the run index grows.
 */
export function loopAgain(run: NodeRun): RunOptions['startFrom'] {
	const data = structuredClone(run.run.data);
	data.executionData!.nodeExecutionStack = [];
	return { data, mode: 'manual' };
}

/**
 * The run data of n8n's retry of a failed execution (ExecutionService.retry in n8n 2.x): the failed
 * execution's data, its error removed and the failed run of the last node dropped, run again in
 * mode `retry` under a new execution id. Its custom data comes along.
 */
export function retryExecution(failed: NodeRun): RunOptions['startFrom'] {
	const data = structuredClone(failed.run.data);
	const { lastNodeExecuted } = data.resultData;
	if (lastNodeExecuted) {
		delete data.resultData.error;
		const runs = data.resultData.runData[lastNodeExecuted];
		if (runs?.at(-1)?.error !== undefined) runs.pop();
	}
	return { data, mode: 'retry' };
}
