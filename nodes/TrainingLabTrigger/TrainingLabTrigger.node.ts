import type {
	IDataObject,
	IHookFunctions,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { signatureProblem } from './signature';
import { claimDelivery, retryAfterSeconds } from './deliveries';
import {
	acceptedSecrets,
	deleteEndpoint,
	findEndpoint,
	forgetEndpoint,
	holdEndpoint,
	ownEndpointId,
	registerEndpoint,
	rekeyEndpoint,
	releaseEndpoint,
	type StoredEndpoint,
	type Wanted,
} from './endpoint';
import { apiPath, apiRequest, fetchAdminOrgId, fetchOrgId } from '../shared/transport';
import { TRIGGER_EVENT_OPTIONS } from './events';
import { eventsSubtitle } from '../shared/subtitle';
import type { DeliveryBody, EventType, Schemas } from '../shared/api';

/** Values of the Acknowledge Deliveries option. */
const ACK_WHEN_FINISHED = 'whenFinished';
const ACK_ON_RECEIPT = 'onReceipt';
const DEFAULT_GIVE_UP_MINUTES = 5;

/** Values of the Events While Inactive option. */
const WHILE_INACTIVE_RUN = 'run';
const WHILE_INACTIVE_SKIP = 'skip';

/**
 * The header the trigger answers every delivery it took with: the API counts only such an answer
 * as delivered (the endpoint requires receipts), not one n8n gave while starting up, nor a proxy's.
 */
const RECEIPT_HEADER = 'webhook-receipt';

const ENDPOINT_NEEDS = "Registering this trigger's webhook endpoint";

/**
 * Each field of a delivery's body, in the order of the output item: those every delivery carries,
 * and those it carries only when they apply (a sample event, a resend a person asked for). Typed by
 * the API's schema of the body, so a field it adds or renames fails the type check until it is here.
 */
const DELIVERY_FIELDS: Record<keyof DeliveryBody, 'always' | 'when present'> = {
	id: 'always',
	type: 'always',
	occurred_at: 'always',
	org_id: 'always',
	actor: 'always',
	data: 'always',
	test: 'when present',
	resend: 'when present',
};

interface TriggerOptions {
	sampleWhenListening?: boolean;
	runOnTestEvents?: boolean;
}

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
		properties: [
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				default: ['member.removed'],
				options: TRIGGER_EVENT_OPTIONS,
				description: 'The events that start the workflow',
			},
			{
				displayName: 'Acknowledge Deliveries',
				name: 'acknowledge',
				type: 'options',
				default: ACK_ON_RECEIPT,
				options: [
					{
						name: 'On Receipt',
						value: ACK_ON_RECEIPT,
						description:
							'Answer as soon as the delivery is verified, for workflows that run long or wait. An execution lost to a crash of n8n is not delivered again.',
					},
					{
						name: 'When the Workflow Has Finished',
						value: ACK_WHEN_FINISHED,
						description:
							'The API counts an event as delivered only once its execution has finished, and delivers it again if n8n, a worker or Redis went down before. The workflow must finish within the delivery timeout of the API (10 s by default); one that fails or takes longer is delivered again.',
					},
				],
				description: 'When n8n tells the Training Lab API that an event has arrived',
			},
			eventsWhileInactive(WHILE_INACTIVE_SKIP, [1]),
			eventsWhileInactive(WHILE_INACTIVE_RUN, [{ _cnd: { gte: 1.1 } }]),
			{
				displayName: 'Give Up on an Unfinished Execution After (Minutes)',
				name: 'giveUpAfterMinutes',
				type: 'number',
				default: DEFAULT_GIVE_UP_MINUTES,
				typeOptions: { minValue: 0.1, numberPrecision: 1 },
				displayOptions: { show: { acknowledge: [ACK_WHEN_FINISHED] } },
				description:
					'While an execution has not finished, a repeat of its event is answered 503. After this long the execution is taken as lost (say its queue job went with a restart of a Redis that keeps nothing) and the next repeat runs the workflow again. Set it above the longest time the workflow takes.',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Run on Test Events',
						name: 'runOnTestEvents',
						type: 'boolean',
						default: false,
						description:
							'Whether the active workflow runs for test events (sample events sent with Send Test Event in the Training Lab console, API or node). Off: they are acknowledged and ignored. While you listen for a test event in the editor they always run.',
					},
					{
						displayName: 'Send a Sample When Listening',
						name: 'sampleWhenListening',
						type: 'boolean',
						default: true,
						description:
							'Whether Listen for Test Event asks the Training Lab API for a test event of the first selected type, so you need not cause a real one. It carries sample values (example.com addresses) and "test": true, and changes nothing in Training Lab. Off: the editor waits for a real event.',
					},
				],
			},
			{
				displayName:
					'Every delivery is verified with the signing secret of the webhook endpoint this node registers; forged or replayed requests are answered 401. An event can run more than once (its webhook_id stays the same). Training Lab creates in this workflow are keyed on the event and happen once; give other systems the webhook_id as their idempotency key. Do not drop repeats with Remove Duplicates before the effect: a crash between the two loses the event.',
				name: 'signatureNotice',
				type: 'notice',
				default: '',
			},
		],
	};

	webhookMethods = {
		default: {
			/**
			 * The stored endpoint is there as this trigger wants it: not held, with this URL, these events
			 * and receipts. Otherwise `create` puts it right, in place.
			 */
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const stored = this.getWorkflowStaticData('node') as StoredEndpoint;
				const id = ownEndpointId(this, stored);
				if (id === undefined) return false;
				const endpoint = await findEndpoint.call(
					this,
					await fetchAdminOrgId.call(this, ENDPOINT_NEEDS),
					id,
				);
				const wanted = wantedEndpoint.call(this);
				return (
					endpoint !== undefined &&
					endpoint.held_since === null &&
					endpoint.require_receipt &&
					endpoint.url === wanted.url &&
					sameSet(endpoint.event_types, wanted.event_types)
				);
			},

			/**
			 * Activation, and n8n saving an active workflow: the endpoint this workflow registered is made
			 * this trigger's again in place (same id and secret; its URL and events changed if they did)
			 * and released, so every delivery it kept meanwhile goes, or on an activation with Events
			 * While Inactive set to skip, those of events of the inactive time are given up (recoverable).
			 * A new endpoint only when it is gone. Listening in the editor registers one for the test URL.
			 * A trainer key fails here, so activation fails naming the admin key it needs.
			 */
			async create(this: IHookFunctions): Promise<boolean> {
				const org = await fetchAdminOrgId.call(this, ENDPOINT_NEEDS);
				const stored = this.getWorkflowStaticData('node') as StoredEndpoint;
				const wanted = wantedEndpoint.call(this);
				if (this.getMode() === 'manual') {
					// n8n gives each listening empty static data of its own (docs/n8n-findings.md).
					const created = await registerEndpoint.call(this, org, wanted, stored);
					stored.listening = true;
					if (triggerOptions.call(this).sampleWhenListening !== false)
						await requestSample.call(this, org, created.id);
					return true;
				}
				const id = ownEndpointId(this, stored);
				const skipHeld =
					this.getActivationMode() === 'activate' &&
					this.getNodeParameter('eventsWhileInactive', WHILE_INACTIVE_RUN) === WHILE_INACTIVE_SKIP;
				let endpoint =
					id === undefined
						? undefined
						: await releaseEndpoint.call(this, org, id, wanted, skipHeld);
				if (endpoint) await rekeyEndpoint.call(this, org, endpoint.id, stored);
				endpoint ??= await registerEndpoint.call(this, org, wanted, stored);
				if (endpoint.disabled_at !== null)
					this.logger.warn(
						`Training Lab Trigger: webhook endpoint ${endpoint.id} of workflow "${this.getWorkflow().name}" is disabled in Training Lab (paused by a person since ${endpoint.disabled_at}): no event reaches this workflow until it is enabled there. Events meanwhile are kept; recover them once it is enabled.`,
					);
				return true;
			},

			/**
			 * Deactivation, and n8n saving an active workflow (it removes and adds the trigger): the
			 * endpoint is held, not deleted, so that the events meanwhile are kept for the next
			 * activation; the API deletes an endpoint held for 30 days. Listening in the editor ends by
			 * deleting the endpoint of the test URL.
			 */
			async delete(this: IHookFunctions): Promise<boolean> {
				const stored = this.getWorkflowStaticData('node') as StoredEndpoint;
				const id = ownEndpointId(this, stored);
				try {
					if (id !== undefined) {
						const org = await fetchOrgId.call(this);
						if (stored.listening) await deleteEndpoint.call(this, org, id);
						else if (await holdEndpoint.call(this, org, id)) return true;
					}
				} catch (error) {
					this.logger.error(
						`Training Lab Trigger: could not ${stored.listening ? 'delete' : 'hold'} webhook endpoint ${id}; its deliveries fail until the workflow is active again, and are retried then`,
						{ error: (error as Error).message },
					);
					return false;
				}
				forgetEndpoint(stored); // deleted, gone, or another workflow's
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const request = this.getRequestObject();
		const response = this.getResponseObject();
		const now = Date.now();
		const secrets = acceptedSecrets(this.getWorkflowStaticData('node') as StoredEndpoint, now);
		const rawBody =
			(request as unknown as { rawBody?: Buffer }).rawBody ?? JSON.stringify(this.getBodyData());
		const problem =
			secrets.length > 0
				? signatureProblem(secrets, request.headers, rawBody, Math.floor(now / 1000))
				: 'this workflow has no registered webhook endpoint';
		if (problem !== null) {
			this.logger.warn(`Training Lab Trigger: delivery refused (${problem})`);
			response.status(401).json({ error: 'Invalid webhook signature' });
			return { noWebhookResponse: true };
		}
		const eventId = request.headers['webhook-id'] as string;
		// Whatever the answer (n8n's own, once the workflow has finished, included), it is this
		// trigger's: a 2xx with it is a delivery, any other answer a failed attempt.
		response.setHeader(RECEIPT_HEADER, eventId);

		const event = this.getBodyData();
		if (!selectedEvents.call(this).includes(event.type as EventType)) {
			response.status(200).json({ received: true, ignored: true });
			return { noWebhookResponse: true };
		}
		const listening = this.getMode() === 'manual';
		if (event.test === true && !listening && !triggerOptions.call(this).runOnTestEvents) {
			response.status(200).json({ received: true, ignored: 'test event' });
			return { noWebhookResponse: true };
		}
		// A resend a person asked for is a delivery of its own, which runs again; its automatic
		// retries, like those of the first delivery, do not.
		const delivery = typeof event.resend === 'number' ? `${eventId}#${event.resend}` : eventId;
		const seen = claimDelivery(this, delivery, now, giveUpAfterMs.call(this));
		if (seen === 'done') {
			response.status(200).json({ received: true, duplicate: true });
			return { noWebhookResponse: true };
		}
		if (seen === 'running') {
			// Not 2xx: should the running execution be lost, the API's next attempt runs the event. The
			// API tries again when Retry-After says, not at the next step of its schedule (minutes).
			response
				.status(503)
				.set('Retry-After', String(retryAfterSeconds(this, delivery, now)))
				.json({ error: 'This event is still being executed; deliver it again later' });
			return { noWebhookResponse: true };
		}
		const output: IDataObject = { webhook_id: eventId };
		for (const [field, when] of Object.entries(DELIVERY_FIELDS))
			if (when === 'always' || event[field] !== undefined) output[field] = event[field];
		return { workflowData: [this.helpers.returnJsonArray([output])] };
	}
}

/**
 * How long a repeat waits on an unanswered execution. Answered on receipt, an execution is answered
 * at once; the default then only matters for an execution n8n held up while it started.
 */
function giveUpAfterMs(this: IWebhookFunctions): number {
	return (this.getNodeParameter('giveUpAfterMinutes', DEFAULT_GIVE_UP_MINUTES) as number) * 60_000;
}

function selectedEvents(this: IHookFunctions | IWebhookFunctions): EventType[] {
	return this.getNodeParameter('events', []) as EventType[];
}

function triggerOptions(this: IHookFunctions | IWebhookFunctions): TriggerOptions {
	return this.getNodeParameter('options', {}) as TriggerOptions;
}

/**
 * Asks the API for a test event of the first selected type, for the editor that is listening. The
 * listening goes on without it should the request fail: a real event still arrives.
 */
async function requestSample(this: IHookFunctions, org: string, webhookId: string): Promise<void> {
	const [eventType] = selectedEvents.call(this);
	try {
		const body: Schemas['WebhookTestRequest'] = { event_type: eventType };
		await apiRequest.call(this, 'POST', apiPath`/orgs/${org}/webhooks/${webhookId}/test`, {
			body,
		});
	} catch (error) {
		this.logger.warn(
			`Training Lab Trigger: could not ask for a test event (${(error as Error).message})`,
		);
	}
}

/** The endpoint this trigger wants: its URL, its events, a description naming the workflow. */
function wantedEndpoint(this: IHookFunctions): Wanted {
	const workflow = this.getWorkflow();
	return {
		url: new URL(this.getNodeWebhookUrl('default') as string).href,
		event_types: selectedEvents.call(this),
		description: `n8n workflow "${workflow.name ?? workflow.id}"`,
	};
}

/** Events While Inactive, whose default depends on the node's version. */
function eventsWhileInactive(
	defaultValue: string,
	versions: NonNullable<NonNullable<INodeProperties['displayOptions']>['show']>['@version'],
): INodeProperties {
	return {
		displayName: 'Events While Inactive',
		name: 'eventsWhileInactive',
		type: 'options',
		default: defaultValue,
		displayOptions: { show: { '@version': versions } },
		options: [
			{
				name: 'Run Them When Activated',
				value: WHILE_INACTIVE_RUN,
				description:
					'The Training Lab API keeps the events that happen while this workflow is inactive, and activating it runs each',
			},
			{
				name: 'Skip Them',
				value: WHILE_INACTIVE_SKIP,
				description:
					'Activating the workflow skips the events of the time it was inactive. They stay recoverable: Webhook → Recover Deliveries.',
			},
		],
		description:
			'What activating this workflow does with the events that happened while it was inactive. Saving an active workflow never skips anything: an event during the save runs after it.',
	};
}

function sameSet(a: string[], b: string[]): boolean {
	return a.length === b.length && a.every((value) => b.includes(value));
}
