import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes } from 'n8n-workflow';
import { signatureProblem } from './signature';
import { claimDelivery } from './deliveries';
import {
	apiPath,
	apiRequest,
	apiRequestAllItems,
	apiRequestAs,
	fetchAdminOrgId,
	fetchOrgId,
	nodeErrorOf,
} from '../shared/transport';
import { TRIGGER_EVENT_OPTIONS } from './events';
import { eventsSubtitle } from '../shared/subtitle';
import type { EventType, Json, Schemas } from '../shared/api';

type Endpoint = Json<'Webhook'>;

/** Values of the Acknowledge Deliveries option. */
const ACK_WHEN_FINISHED = 'whenFinished';
const ACK_ON_RECEIPT = 'onReceipt';
const DEFAULT_GIVE_UP_MINUTES = 5;

const requestEndpoint = apiRequestAs<Endpoint>;
const createEndpoint = apiRequestAs<Json<'WebhookCreated'>>;
const listAllEndpoints = apiRequestAllItems<Endpoint>;
const ENDPOINT_NEEDS = "Registering this trigger's webhook endpoint";

const EVENT_FIELDS = ['id', 'type', 'occurred_at', 'org_id', 'actor', 'data'] as const;
/** Fields a delivery carries only when they apply: a sample event, or a resend a person asked for. */
const MARK_FIELDS = ['test', 'resend'] as const;

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
		version: 1,
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
			/** The stored endpoint still exists, enabled, with this URL and these events, and its secret is known. */
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const stored = this.getWorkflowStaticData('node');
				if (typeof stored.webhookId !== 'string' || typeof stored.webhookSecret !== 'string')
					return false;
				const org = await fetchAdminOrgId.call(this, ENDPOINT_NEEDS);
				let endpoint: Endpoint;
				try {
					const path = apiPath`/orgs/${org}/webhooks/${stored.webhookId}`;
					endpoint = (await requestEndpoint.call(this, 'GET', path)).body;
				} catch (error) {
					if ((error as NodeApiError).httpCode === '404') return false;
					throw nodeErrorOf(this, error);
				}
				return (
					endpoint.disabled_at === null &&
					endpoint.url === ownUrl.call(this) &&
					sameSet(endpoint.event_types, selectedEvents.call(this))
				);
			},

			/**
			 * Registers the endpoint; one left over for this URL (409 url_taken) is replaced, never
			 * doubled, and the one this workflow registered before (say for n8n's previous public URL)
			 * is deleted. A trainer key fails here, so activation fails naming the admin key it needs.
			 */
			async create(this: IHookFunctions): Promise<boolean> {
				const org = await fetchAdminOrgId.call(this, ENDPOINT_NEEDS);
				const stored = this.getWorkflowStaticData('node');
				if (typeof stored.webhookId === 'string') {
					await deleteEndpoint.call(this, org, stored.webhookId);
					delete stored.webhookId;
					delete stored.webhookSecret;
				}
				const body: Schemas['WebhookCreate'] = {
					url: ownUrl.call(this),
					event_types: selectedEvents.call(this),
					description: `n8n workflow "${this.getWorkflow().name ?? this.getWorkflow().id}"`,
				};
				const path = apiPath`/orgs/${org}/webhooks`;
				let created: Json<'WebhookCreated'>;
				try {
					created = (await createEndpoint.call(this, 'POST', path, { body })).body;
				} catch (error) {
					if ((error as NodeApiError).context?.apiCode !== 'url_taken')
						throw nodeErrorOf(this, error);
					const stale = (await listEndpoints.call(this, org)).find(
						(endpoint) => endpoint.url === body.url,
					);
					if (stale) await deleteEndpoint.call(this, org, stale.id);
					created = (await createEndpoint.call(this, 'POST', path, { body })).body;
				}
				stored.webhookId = created.id;
				stored.webhookSecret = created.secret;
				if (this.getMode() === 'manual' && triggerOptions.call(this).sampleWhenListening !== false)
					await requestSample.call(this, org, created.id);
				return true;
			},

			/** Removes the endpoint and forgets it; one that is already gone is fine. */
			async delete(this: IHookFunctions): Promise<boolean> {
				const stored = this.getWorkflowStaticData('node');
				const webhookId = stored.webhookId;
				delete stored.webhookId;
				delete stored.webhookSecret;
				if (typeof webhookId !== 'string') return true;
				try {
					await deleteEndpoint.call(this, await fetchOrgId.call(this), webhookId);
				} catch (error) {
					this.logger.error(
						`Training Lab Trigger: could not delete webhook endpoint ${webhookId}`,
						{
							error: (error as Error).message,
						},
					);
					return false;
				}
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const request = this.getRequestObject();
		const response = this.getResponseObject();
		const secret = this.getWorkflowStaticData('node').webhookSecret;
		const rawBody =
			(request as unknown as { rawBody?: Buffer }).rawBody ?? JSON.stringify(this.getBodyData());
		const problem =
			typeof secret === 'string'
				? signatureProblem(secret, request.headers, rawBody, Math.floor(Date.now() / 1000))
				: 'this workflow has no registered webhook endpoint';
		if (problem !== null) {
			this.logger.warn(`Training Lab Trigger: delivery refused (${problem})`);
			response.status(401).json({ error: 'Invalid webhook signature' });
			return { noWebhookResponse: true };
		}

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
		const eventId = request.headers['webhook-id'] as string;
		// A resend a person asked for is a delivery of its own, which runs again; its automatic
		// retries, like those of the first delivery, do not.
		const delivery = typeof event.resend === 'number' ? `${eventId}#${event.resend}` : eventId;
		const seen = claimDelivery(this, delivery, Date.now(), giveUpAfterMs.call(this));
		if (seen === 'done') {
			response.status(200).json({ received: true, duplicate: true });
			return { noWebhookResponse: true };
		}
		if (seen === 'running') {
			// Not 2xx: should the running execution be lost, the API's next attempt runs the event.
			response
				.status(503)
				.json({ error: 'This event is still being executed; deliver it again later' });
			return { noWebhookResponse: true };
		}
		const output: IDataObject = { webhook_id: eventId };
		for (const field of EVENT_FIELDS) output[field] = event[field];
		for (const field of MARK_FIELDS) if (event[field] !== undefined) output[field] = event[field];
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

/** The URL n8n serves this trigger at, spelled as the API stores URLs. */
function ownUrl(this: IHookFunctions): string {
	return new URL(this.getNodeWebhookUrl('default') as string).href;
}

/** Deletes an endpoint; one that is already gone is fine. */
async function deleteEndpoint(this: IHookFunctions, org: string, id: string): Promise<void> {
	try {
		await apiRequest.call(this, 'DELETE', apiPath`/orgs/${org}/webhooks/${id}`);
	} catch (error) {
		if ((error as NodeApiError).httpCode !== '404') throw nodeErrorOf(this, error);
	}
}

async function listEndpoints(this: IHookFunctions, org: string): Promise<Endpoint[]> {
	return await listAllEndpoints.call(this, apiPath`/orgs/${org}/webhooks`);
}

function sameSet(a: string[], b: string[]): boolean {
	return a.length === b.length && a.every((value) => b.includes(value));
}
