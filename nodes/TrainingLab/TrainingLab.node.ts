import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { searchLabs } from './listSearch/searchLabs';
import { searchDraftLabVersions, searchPublishedLabVersions } from './listSearch/searchLabVersions';
import { searchMembers } from './listSearch/searchMembers';
import { searchSessions } from './listSearch/searchSessions';
import { activityEvent } from './resources/activityEvent';
import { apiKey } from './resources/apiKey';
import { identity } from './resources/identity';
import { lab } from './resources/lab';
import { labVersion } from './resources/labVersion';
import { member } from './resources/member';
import { organization } from './resources/organization';
import { participant } from './resources/participant';
import { session } from './resources/session';
import { webhook } from './resources/webhook';
import { subtitleLookup } from '../shared/subtitle';
import { batchingOption, forEachItem } from './shared/batching';
import { fetchOrgId, nodeErrorOf } from '../shared/transport';
import type { Resource } from './shared/resource';
import type { ExecutionContext } from './shared/types';

// Every resource of the node, in the order of the Resource selector.
const RESOURCES: Resource[] = [
	activityEvent,
	apiKey,
	identity,
	lab,
	labVersion,
	member,
	organization,
	participant,
	session,
	webhook,
];

export class TrainingLab implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Training Lab',
		name: 'trainingLab',
		icon: {
			light: 'file:../../icons/trainingLab.svg',
			dark: 'file:../../icons/trainingLab.dark.svg',
		},
		group: ['transform'],
		version: 1,
		// "Create a session", not "create: session".
		subtitle: subtitleLookup(
			Object.fromEntries(
				RESOURCES.flatMap((resource) =>
					Object.entries(resource.actions).map(([operation, action]) => [
						`${resource.option.value}:${operation}`,
						action,
					]),
				),
			),
			'$parameter["resource"] + ":" + $parameter["operation"]',
		),
		description:
			'Manage the members, sessions, labs, API keys and webhooks of a Training Lab organization',
		defaults: { name: 'Training Lab' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'trainingLabApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: RESOURCES.map((resource) => resource.option),
				default: 'session',
			},
			...RESOURCES.flatMap((resource) => resource.properties),
			{
				displayName: 'Request Options',
				name: 'requestOptions',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					batchingOption,
					{
						displayName: 'Max Retries on Rate Limit',
						name: 'maxRateLimitRetries',
						type: 'number',
						typeOptions: { minValue: 0, maxValue: 20, numberPrecision: 0 },
						default: 5,
						description:
							'How many times a request answered 429 (rate limited) is repeated after waiting the Retry-After time the API asks for',
					},
				],
			},
		],
	};

	methods = {
		listSearch: {
			searchDraftLabVersions,
			searchLabs,
			searchMembers,
			searchPublishedLabVersions,
			searchSessions,
		},
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const resource = this.getNodeParameter('resource', 0) as string;
		const operation = this.getNodeParameter('operation', 0) as string;
		const run = RESOURCES.find((candidate) => candidate.option.value === resource)?.operations.get(
			operation,
		);
		if (!run) {
			throw new NodeOperationError(
				this.getNode(),
				`The operation "${operation}" of "${resource}" is not supported`,
			);
		}

		// The organization comes from GET /me, once per execution of the node (a failed lookup is retried by the next item).
		let orgId: Promise<string> | undefined;
		const context: ExecutionContext = {
			orgId: (itemIndex) => {
				orgId ??= fetchOrgId.call(this, itemIndex).catch((error: unknown) => {
					orgId = undefined;
					throw error;
				});
				return orgId;
			},
		};

		// Run by an AI Agent or an MCP client: what the model reads of an error is its message alone.
		const asTool = this.getNode().type.endsWith('Tool');
		// Items run side by side (see forEachItem); their output keeps the order of the input.
		const outputs: INodeExecutionData[][] = [];
		let failure: { itemIndex: number; error: NodeApiError | NodeOperationError } | undefined;
		await forEachItem(
			this,
			items.length,
			async (itemIndex) => {
				try {
					const result = await run.call(this, itemIndex, context);
					outputs[itemIndex] = this.helpers.constructExecutionMetaData(
						this.helpers.returnJsonArray(result),
						{ itemData: { item: itemIndex } },
					);
				} catch (error) {
					const nodeError = nodeErrorOf(this, error, itemIndex);
					if (this.continueOnFail()) {
						outputs[itemIndex] = [
							{ json: failedItemJson(nodeError), pairedItem: { item: itemIndex } },
						];
					} else if (!failure || itemIndex < failure.itemIndex) {
						failure = { itemIndex, error: nodeError };
					}
				}
			},
			() => failure !== undefined,
		);
		// The first item that failed, as if the items had run one after another.
		if (failure) throw asTool ? withDetailsInMessage(failure.error) : failure.error;
		const returnData = outputs.flat();
		return [returnData];
	}
}

/**
 * The error as an AI tool reports it: models read the message (an agent) or the message and the
 * description (an MCP client), so the API's code and the HTTP status go into the message for both.
 */
function withDetailsInMessage(error: NodeApiError | NodeOperationError) {
	const details = [error instanceof NodeApiError && `HTTP ${error.httpCode}`, error.description]
		.filter(Boolean)
		.join(', ');
	if (details) error.message = `${error.message} (${details})`;
	return error;
}

/**
 * The JSON of an item that failed under "On Error: Continue": `{ error: { message, code, httpCode,
 * description } }`, as n8n's HTTP Request node gives a failed request. Both outputs get this shape,
 * and it is one that n8n 1.x and 2.x both send to the error output: they route an item whose JSON
 * holds `error` alone (2.x also `message` and `details` beside it, 1.x only `message`). An item with
 * the error object itself attached would route too, but n8n then replaces its JSON with the message.
 */
function failedItemJson(error: NodeApiError | NodeOperationError): IDataObject {
	if (!(error instanceof NodeApiError)) return { error: { message: error.message } };
	return {
		error: {
			message: error.message,
			code: error.context.apiCode as string,
			httpCode: error.httpCode,
			description: error.description,
		},
	};
}
