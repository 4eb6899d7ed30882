import { randomUUID } from 'node:crypto';
import { ExecuteContext } from 'n8n-core';
import {
	createEmptyRunExecutionData,
	NodeConnectionTypes,
	Workflow,
	type INode,
	type INodeParameters,
	type INodeType,
	type INodeTypeDescription,
	type IRunExecutionData,
} from 'n8n-workflow';
import { TrainingLab } from '../../../nodes/TrainingLab/TrainingLab.node';
import { additionalDataFor, credentialsHelper, type RunOptions } from '../../support/n8n';
import { NODE_TYPE } from '../../../tooling/root';

/**
 * The Training Lab node as n8n offers it to AI agents and MCP servers (`trainingLabTool`): n8n's CLI
 * (`convertNodeToAiTool`, not published apart from the whole n8n) renames the type, gives it one
 * `ai_tool` output and no input, and adds a tool description field when the node has none. The
 * real conversion is exercised in the end-to-end suite.
 */
function asTool(node: INodeType): INodeType {
	const description: INodeTypeDescription = {
		...node.description,
		name: `${node.description.name}Tool`,
		displayName: `${node.description.displayName} Tool`,
		inputs: [],
		outputs: [NodeConnectionTypes.AiTool],
	};
	delete description.usableAsTool;
	const tool = Object.create(node) as INodeType;
	Object.defineProperty(tool, 'description', { value: description });
	return tool;
}

/** What calls the tool: n8n's AI Agent and MCP Server Trigger both take tools from an `ai_tool` input. */
const toolCaller: INodeType = {
	description: {
		displayName: 'Tool caller',
		name: 'toolCaller',
		group: ['transform'],
		version: 1,
		description: 'Stands where the AI Agent or the MCP Server Trigger stands',
		defaults: { name: 'Tool caller' },
		inputs: [NodeConnectionTypes.Main, NodeConnectionTypes.AiTool],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	},
};

export const trainingLabTool = asTool(new TrainingLab());
const TOOL_TYPE = NODE_TYPE.trainingLabTool;
const NODE_TYPES: Record<string, INodeType> = {
	[TOOL_TYPE]: trainingLabTool,
	'test.toolCaller': toolCaller,
};

export interface CallableTool {
	name: string;
	description: string;
	/** The JSON schema of the arguments, built by n8n from the `$fromAI()` expressions. */
	schema: unknown;
	/** Calls the tool as an agent or MCP server does; resolves to the tool's answer (a string). */
	invoke(args: Record<string, unknown>): Promise<string>;
}

export interface ToolSession {
	/** The tool as n8n hands it to the caller, built afresh as the MCP Server Trigger does per request. */
	tool(): Promise<CallableTool>;
	/** The run data n8n records for the tool node (one entry per call and per try). */
	runs(): NonNullable<IRunExecutionData['resultData']['runData'][string]>;
}

/**
 * The Training Lab tool with `parameters`, obtained through n8n-core's own `getInputConnectionData`
 * (which wraps the node with `createNodeAsTool` and runs each call through its tool-invocation
 * handler, Retry On Fail included).
 *
 * - `executionId: undefined` with a fresh run per `tool()` is how the MCP Server Trigger calls a tool
 *   in a single n8n process: no execution, new run data for each request.
 * - An execution id and one shared run (`sharedRun: true`) is how an AI Agent (before version 3) calls
 *   its tools: every call inside one execution.
 */
export function toolSession(
	parameters: INodeParameters,
	options: Pick<RunOptions, 'credentials' | 'settings'> & {
		executionId?: string;
		sharedRun?: boolean;
	},
): ToolSession {
	const toolNode: INode = {
		id: 'c3d2f2c5-3c56-4a5b-8e68-5a3b8d7d3b21',
		name: 'Training Lab',
		type: TOOL_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { trainingLabApi: { id: '1', name: 'Training Lab account' } },
		...options.settings,
	};
	const callerNode: INode = {
		id: randomUUID(),
		name: 'Tool caller',
		type: 'test.toolCaller',
		typeVersion: 1,
		position: [200, 0],
		parameters: {},
	};
	const workflow = new Workflow({
		id: 'tool-workflow',
		nodes: [callerNode, toolNode],
		connections: {
			[toolNode.name]: {
				[NodeConnectionTypes.AiTool]: [
					[{ node: callerNode.name, type: NodeConnectionTypes.AiTool, index: 0 }],
				],
			},
		},
		active: false,
		nodeTypes: {
			getByName: (type) => NODE_TYPES[type],
			getByNameAndVersion: (type) => NODE_TYPES[type],
			getKnownTypes: () => ({}),
		},
		settings: { timezone: 'UTC' },
	});
	credentialsHelper.setCredentials({ trainingLabApi: options.credentials });
	const additionalData = additionalDataFor(options.executionId as string);
	const shared = createEmptyRunExecutionData();
	let current = shared;

	return {
		async tool() {
			current = options.sharedRun ? shared : createEmptyRunExecutionData();
			const input = [{ json: {} }];
			const context = new ExecuteContext(
				workflow,
				callerNode,
				additionalData,
				options.executionId ? 'trigger' : 'webhook',
				current,
				0,
				input,
				{ main: [input] },
				{ node: callerNode, data: { main: [input] }, source: null },
				[],
			);
			const [tool] = (await context.getInputConnectionData(NodeConnectionTypes.AiTool, 0)) as Array<
				CallableTool & { schema: { toJSONSchema?: () => unknown } }
			>;
			return tool;
		},
		runs: () => current.resultData.runData[toolNode.name] ?? [],
	};
}
