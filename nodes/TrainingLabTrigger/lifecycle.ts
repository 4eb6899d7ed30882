import type { IHookFunctions } from 'n8n-workflow';
import type { Schemas } from '../shared/api';
import { apiPath, apiRequest, fetchAdminOrgId, fetchOrgId } from '../shared/transport';
import {
	selectedEvents,
	triggerOptions,
	WHILE_INACTIVE_RUN,
	WHILE_INACTIVE_SKIP,
} from './description';
import {
	deleteEndpoint,
	findEndpoint,
	holdEndpoint,
	registerEndpoint,
	rekeyEndpoint,
	releaseEndpoint,
	type Wanted,
} from './endpointApi';
import { forgetEndpoint, ownEndpointId, type StoredEndpoint } from './storedEndpoint';

// What n8n's activation, saves, deactivation and the editor's listening do to the trigger's
// endpoint, as its webhook methods: checkExists, then create when that answers false; delete.

const ENDPOINT_NEEDS = "Registering this trigger's webhook endpoint";

/**
 * The stored endpoint is there as this trigger wants it: not held, with this URL, these events
 * and receipts. Otherwise `takeUpEndpoint` puts it right, in place.
 */
export async function endpointIsAsWanted(this: IHookFunctions): Promise<boolean> {
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
}

/**
 * Activation, and n8n saving an active workflow: the endpoint this workflow registered is made
 * this trigger's again in place (same id and secret; its URL and events changed if they did)
 * and released, so every delivery it kept meanwhile goes, or on an activation with Events
 * While Inactive set to skip, those of events of the inactive time are given up (recoverable).
 * A new endpoint only when it is gone. Listening in the editor registers one for the test URL.
 * A trainer key fails here, so activation fails naming the admin key it needs.
 */
export async function takeUpEndpoint(this: IHookFunctions): Promise<boolean> {
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
		id === undefined ? undefined : await releaseEndpoint.call(this, org, id, wanted, skipHeld);
	if (endpoint) await rekeyEndpoint.call(this, org, endpoint.id, stored);
	endpoint ??= await registerEndpoint.call(this, org, wanted, stored, skipHeld);
	if (endpoint.disabled_at !== null)
		this.logger.warn(
			`Training Lab Trigger: webhook endpoint ${endpoint.id} of workflow "${this.getWorkflow().name}" is disabled in Training Lab (paused by a person since ${endpoint.disabled_at}): no event reaches this workflow until it is enabled there. Events meanwhile are kept; recover them once it is enabled.`,
		);
	return true;
}

/**
 * Deactivation, and n8n saving an active workflow (it removes and adds the trigger): the
 * endpoint is held, not deleted, so that the events meanwhile are kept for the next
 * activation; the API deletes an endpoint held for 30 days. Listening in the editor ends by
 * deleting the endpoint of the test URL.
 */
export async function leaveEndpoint(this: IHookFunctions): Promise<boolean> {
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

function sameSet(a: string[], b: string[]): boolean {
	return a.length === b.length && a.every((value) => b.includes(value));
}
