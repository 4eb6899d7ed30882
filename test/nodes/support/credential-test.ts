import { ExecuteContext, RoutingNode } from 'n8n-core';
import {
	Workflow,
	type ICredentialDataDecryptedObject,
	type INode,
	type INodeType,
	type IRunExecutionData,
	type IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { TrainingLabApi } from '../../../credentials/TrainingLabApi.credentials';
import { credentialsHelper, onlyNodeType } from './n8n';

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

/**
 * Runs the credential's test the way n8n's credentials tester does: its `test.request` becomes the
 * routing of a temporary node, run by n8n-core's RoutingNode; failures are mapped to messages by
 * the test's rules, else by the HTTP status text, else by the connection error code; a successful
 * answer is checked by the success-body rules.
 */
export async function testTrainingLabCredential(
	data: ICredentialDataDecryptedObject,
): Promise<CredentialTestResult> {
	const credentialType = new TrainingLabApi();
	const nodeType: INodeType = {
		description: {
			displayName: 'Temp',
			name: 'temp',
			group: ['transform'],
			version: 1,
			description: '',
			defaults: {},
			inputs: [],
			outputs: [],
			credentials: [{ name: credentialType.name, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: credentialType.test.request },
					default: '',
				},
			],
		},
	};
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'temp',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [credentialType.name]: { id: '1', name: 'Training Lab account' } },
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: onlyNodeType(nodeType),
	});
	credentialsHelper.setCredentials({ [credentialType.name]: data });
	const additionalData = {
		credentialsHelper,
		variables: {},
		currentNodeExecutionIndex: 0,
	} as unknown as IWorkflowExecuteAdditionalData;
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		{ resultData: { runData: {} } } as IRunExecutionData,
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);
	let response;
	try {
		response = await new RoutingNode(context, nodeType, {
			id: '1',
			name: 'Training Lab account',
			type: credentialType.name,
			data,
		}).runNode();
	} catch (error) {
		const cause = (
			error as { cause?: { response?: { status: number; statusText?: string }; code?: string } }
		).cause;
		if (cause?.response) {
			const rule = credentialType.test.rules?.find(
				(r) => r.type === 'responseCode' && r.properties.value === cause.response!.status,
			);
			if (rule) return { status: 'Error', message: rule.properties.message };
			return {
				status: 'Error',
				message: cause.response.statusText || `Received HTTP status code: ${cause.response.status}`,
			};
		}
		if (cause?.code) return { status: 'Error', message: cause.code };
		return { status: 'Error', message: (error as Error).message };
	}
	const body = response?.[0]?.[0]?.json;
	for (const rule of credentialType.test.rules ?? []) {
		if (
			rule.type === 'responseSuccessBody' &&
			get(body, rule.properties.key) === rule.properties.value
		)
			return { status: 'Error', message: rule.properties.message };
	}
	return { status: 'OK', message: 'Connection successful!' };
}

/** lodash's `get` for a dotted path, as n8n applies success-body rules. */
function get(value: unknown, path: string): unknown {
	return path
		.split('.')
		.reduce<unknown>(
			(current, key) =>
				current !== null && typeof current === 'object'
					? (current as Record<string, unknown>)[key]
					: undefined,
			value,
		);
}
