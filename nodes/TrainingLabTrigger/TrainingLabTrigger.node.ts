import type { IHookFunctions, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { eventsSubtitle } from '../shared/subtitle';
import { ACK_WHEN_FINISHED, triggerProperties } from './description';
import { TRIGGER_EVENT_OPTIONS } from './events';
import { endpointIsAsWanted, leaveEndpoint, takeUpEndpoint } from './lifecycle';
import { receiveDelivery } from './receive';

/**
 * Starts a workflow on the Training Lab events it selects: it registers its own webhook endpoint
 * (lifecycle.ts) and verifies every delivery before anything runs (receive.ts).
 */
export class TrainingLabTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Training Lab Trigger',
		name: 'trainingLabTrigger',
		icon: {
			light: 'file:../../icons/trainingLab.svg',
			dark: 'file:../../icons/trainingLab.dark.svg',
		},
		group: ['trigger'],
		// 1.1: events that happened while the workflow was inactive run when it is activated (1: skipped).
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: eventsSubtitle(TRIGGER_EVENT_OPTIONS),
		// n8n's node creator lists this trigger and the Training Lab node as one entry and shows this
		// description for it, so it speaks for both.
		description:
			"Manage a Training Lab organization's members, sessions, labs and webhooks, and start workflows when its events happen",
		defaults: { name: 'Training Lab Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'trainingLabApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				// Answered on receipt, or when the workflow has finished (n8n's "last node" mode, no body):
				// see the Acknowledge Deliveries option.
				responseMode: `={{$parameter["acknowledge"] === "${ACK_WHEN_FINISHED}" ? "lastNode" : "onReceived"}}`,
				responseData: 'noData',
				path: 'webhook',
			},
		],
		properties: triggerProperties,
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await endpointIsAsWanted.call(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await takeUpEndpoint.call(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await leaveEndpoint.call(this);
			},
		},
	};

	webhook = receiveDelivery;
}
