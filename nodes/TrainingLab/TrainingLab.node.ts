import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import { searchLabs } from './listSearch/searchLabs';
import { searchDraftLabVersions, searchPublishedLabVersions } from './listSearch/searchLabVersions';
import { searchMembers } from './listSearch/searchMembers';
import { searchSessions } from './listSearch/searchSessions';
import { activityEventDescription, activityEventOperations } from './resources/activityEvent';
import { apiKeyDescription, apiKeyOperations } from './resources/apiKey';
import { identityDescription, identityOperations } from './resources/identity';
import { labDescription, labOperations } from './resources/lab';
import { labVersionDescription, labVersionOperations } from './resources/labVersion';
import { memberDescription, memberOperations } from './resources/member';
import { organizationDescription, organizationOperations } from './resources/organization';
import { participantDescription, participantOperations } from './resources/participant';
import { sessionDescription, sessionOperations } from './resources/session';
import { webhookDescription, webhookOperations } from './resources/webhook';
import { apiRequest } from '../shared/transport';
import type { ExecutionContext, OperationExecute } from './shared/types';

const OPERATIONS: Record<string, Record<string, OperationExecute>> = {
	activityEvent: activityEventOperations,
	apiKey: apiKeyOperations,
	identity: identityOperations,
	lab: labOperations,
	labVersion: labVersionOperations,
	member: memberOperations,
	organization: organizationOperations,
	participant: participantOperations,
	session: sessionOperations,
	webhook: webhookOperations,
};

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
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
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
				options: [
					{ name: 'Activity Event', value: 'activityEvent' },
					{ name: 'API Key', value: 'apiKey' },
					{ name: 'Identity', value: 'identity' },
					{ name: 'Lab', value: 'lab' },
					{ name: 'Lab Version', value: 'labVersion' },
					{ name: 'Member', value: 'member' },
					{ name: 'Organization', value: 'organization' },
					{ name: 'Participant', value: 'participant' },
					{ name: 'Session', value: 'session' },
					{ name: 'Webhook', value: 'webhook' },
				],
				default: 'session',
			},
			...activityEventDescription,
			...apiKeyDescription,
			...identityDescription,
			...labDescription,
			...labVersionDescription,
			...memberDescription,
			...organizationDescription,
			...participantDescription,
			...sessionDescription,
			...webhookDescription,
			{
				displayName: 'Request Options',
				name: 'requestOptions',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
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
		const run = OPERATIONS[resource]?.[operation];
		if (!run) {
			throw new NodeOperationError(
				this.getNode(),
				`The operation "${operation}" of "${resource}" is not supported`,
			);
		}

		// The organisation comes from GET /me, once per execution of the node (a failed lookup is retried by the next item).
		let orgId: Promise<string> | undefined;
		const context: ExecutionContext = {
			orgId: () => {
				orgId ??= apiRequest.call(this, 'GET', '/me').then(
					({ body }) => (body as { org: { id: string } }).org.id,
					(error: unknown) => {
						orgId = undefined;
						throw error;
					},
				);
				return orgId;
			},
		};

		const returnData: INodeExecutionData[] = [];
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				const result = await run.call(this, itemIndex, context);
				returnData.push(
					...this.helpers.constructExecutionMetaData(this.helpers.returnJsonArray(result), {
						itemData: { item: itemIndex },
					}),
				);
			} catch (error) {
				if (this.continueOnFail()) {
					returnData.push({ json: errorOutput(error), pairedItem: { item: itemIndex } });
					continue;
				}
				if (error instanceof NodeApiError) {
					error.context.itemIndex ??= itemIndex;
					// Re-wrapping a NodeApiError hands back the same error, with the API's code and message.
					throw new NodeApiError(this.getNode(), error as unknown as JsonObject);
				}
				throw new NodeOperationError(this.getNode(), error as Error, { itemIndex });
			}
		}
		return [returnData];
	}
}

function errorOutput(error: unknown): IDataObject {
	if (error instanceof NodeApiError) {
		return {
			error: error.message,
			code: error.context.apiCode as string,
			httpCode: error.httpCode,
			description: error.description,
		};
	}
	return { error: (error as Error).message };
}
