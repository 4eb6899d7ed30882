import type { IHookFunctions, NodeApiError } from 'n8n-workflow';
import type { EventType, Json, Schemas } from '../shared/api';
import {
	apiPath,
	apiRequest,
	apiRequestAllItems,
	apiRequestAs,
	nodeErrorOf,
} from '../shared/transport';
import { forgetEndpoint, REKEY_OVERLAP_MS, type StoredEndpoint } from './storedEndpoint';

// The trigger's calls to the API about its webhook endpoint: find, register, release, hold,
// re-key, delete. Each that changes what is stored changes the one StoredEndpoint.

export type Endpoint = Json<'Webhook'>;

/** What the endpoint should be: this trigger's URL, events and description, with receipts. */
export interface Wanted {
	url: string;
	event_types: EventType[];
	description: string;
}

const requestEndpoint = apiRequestAs<Endpoint>;
const rotateSecret = apiRequestAs<Json<'WebhookSecretRotated'>>;
const createEndpoint = apiRequestAs<Json<'WebhookCreated'>>;
const listAllEndpoints = apiRequestAllItems<Endpoint>;

/** The endpoint, or undefined when it is gone. */
export async function findEndpoint(
	this: IHookFunctions,
	org: string,
	id: string,
): Promise<Endpoint | undefined> {
	return await unlessGone(this, async () => {
		return (await requestEndpoint.call(this, 'GET', apiPath`/orgs/${org}/webhooks/${id}`)).body;
	});
}

/**
 * Registers a new endpoint and stores it. One left over for this URL (409 url_taken: the
 * workflow's static data lost, n8n's database restored from a backup) is taken over in place
 * rather than doubled or deleted, so the deliveries it kept go, as on a release (`skipHeld`).
 */
export async function registerEndpoint(
	this: IHookFunctions,
	org: string,
	wanted: Wanted,
	stored: StoredEndpoint,
	skipHeld = false,
): Promise<Endpoint> {
	const body: Schemas['WebhookCreate'] = { ...wanted, require_receipt: true };
	const path = apiPath`/orgs/${org}/webhooks`;
	for (let tries = 0; ; tries++) {
		try {
			const created = (await createEndpoint.call(this, 'POST', path, { body })).body;
			storeEndpoint(this, stored, created.id, created.secret);
			return created;
		} catch (error) {
			if ((error as NodeApiError).context?.apiCode !== 'url_taken' || tries > 0)
				throw nodeErrorOf(this, error);
		}
		const endpoints = await listAllEndpoints.call(this, path);
		const leftover = endpoints.find((endpoint) => endpoint.url === wanted.url);
		const taken =
			leftover && (await takeOver.call(this, org, leftover.id, wanted, stored, skipHeld));
		if (taken) return taken;
		// Gone meanwhile: register again, once.
	}
}

/**
 * Makes an endpoint left over for this trigger's URL its own: a new secret (the old one, which
 * this workflow never had, ends at once) and released as `releaseEndpoint` does. Undefined when
 * it is gone.
 */
async function takeOver(
	this: IHookFunctions,
	org: string,
	id: string,
	wanted: Wanted,
	stored: StoredEndpoint,
	skipHeld: boolean,
): Promise<Endpoint | undefined> {
	const rotated = await unlessGone(this, () => newSecret(this, org, id, new Date()));
	if (!rotated) return undefined;
	storeEndpoint(this, stored, id, rotated.secret);
	return await releaseEndpoint.call(this, org, id, wanted, skipHeld);
}

/** Stores the endpoint as this workflow's, with its one secret. */
function storeEndpoint(
	context: IHookFunctions,
	stored: StoredEndpoint,
	id: string,
	secret: string,
): void {
	forgetEndpoint(stored);
	stored.webhookId = id;
	stored.webhookSecret = secret;
	stored.webhookWorkflowId = context.getWorkflow().id;
}

/**
 * Makes the stored endpoint this trigger's again, in place: its URL, events and description, with
 * receipts, released if it was held (sending what it kept, or with `skipHeld` giving that up). A
 * person's pause (disabled) stays. Undefined when the endpoint is gone.
 */
export async function releaseEndpoint(
	this: IHookFunctions,
	org: string,
	id: string,
	wanted: Wanted,
	skipHeld: boolean,
): Promise<Endpoint | undefined> {
	const body: Schemas['WebhookUpdate'] = {
		...wanted,
		require_receipt: true,
		held: false,
		...(skipHeld ? { skip_held_events: true } : {}),
	};
	const path = apiPath`/orgs/${org}/webhooks/${id}`;
	return await unlessGone(this, () =>
		retryOnceUrlTaken(this, org, wanted.url, async () => {
			return (await requestEndpoint.call(this, 'PATCH', path, { body })).body;
		}),
	);
}

/** Holds the endpoint's deliveries while the workflow is inactive; false when it is gone. */
export async function holdEndpoint(
	this: IHookFunctions,
	org: string,
	id: string,
): Promise<boolean> {
	const body: Schemas['WebhookUpdate'] = { held: true };
	const held = await unlessGone(this, () =>
		apiRequest.call(this, 'PATCH', apiPath`/orgs/${org}/webhooks/${id}`, { body }),
	);
	return held !== undefined;
}

/** Deletes an endpoint; one that is already gone is fine. */
export async function deleteEndpoint(this: IHookFunctions, org: string, id: string): Promise<void> {
	await unlessGone(this, () =>
		apiRequest.call(this, 'DELETE', apiPath`/orgs/${org}/webhooks/${id}`),
	);
}

/** What `request` answers, or undefined when the endpoint it asks about is gone (404). */
async function unlessGone<T>(
	context: IHookFunctions,
	request: () => Promise<T>,
): Promise<T | undefined> {
	try {
		return await request();
	} catch (error) {
		if ((error as NodeApiError).httpCode === '404') return undefined;
		throw nodeErrorOf(context, error);
	}
}

/**
 * Runs `attempt`; should the URL be taken (409 url_taken) by an endpoint left over for this
 * trigger's own URL (its static data lost), deletes that one and runs it once more.
 */
async function retryOnceUrlTaken<T>(
	context: IHookFunctions,
	org: string,
	url: string,
	attempt: () => Promise<T>,
): Promise<T> {
	try {
		return await attempt();
	} catch (error) {
		if ((error as NodeApiError).context?.apiCode !== 'url_taken') throw nodeErrorOf(context, error);
		const endpoints = await listAllEndpoints.call(context, apiPath`/orgs/${org}/webhooks`);
		const leftover = endpoints.find((endpoint) => endpoint.url === url);
		if (leftover) await deleteEndpoint.call(context, org, leftover.id);
		return await attempt();
	}
}

/**
 * Gives the stored endpoint a new signing secret, the old one accepted for `REKEY_OVERLAP_MS` (the
 * API signs each delivery with both meanwhile), so that a secret copied with an export of the
 * workflow stops working and no delivery in flight is refused. Should the API refuse, the endpoint
 * keeps its secret: that is logged, and activation goes on.
 */
export async function rekeyEndpoint(
	this: IHookFunctions,
	org: string,
	id: string,
	stored: StoredEndpoint,
): Promise<void> {
	try {
		const rotated = await newSecret(this, org, id, new Date(Date.now() + REKEY_OVERLAP_MS));
		stored.previousWebhookSecret = stored.webhookSecret;
		stored.previousSecretExpiresAt = rotated.previous_secret_expires_at ?? undefined;
		stored.webhookSecret = rotated.secret;
	} catch (error) {
		this.logger.warn(
			`Training Lab Trigger: could not give webhook endpoint ${id} a new signing secret; it keeps the one it has`,
			{ error: (error as Error).message },
		);
	}
}

/** Gives the endpoint a new signing secret; the old one is accepted until `oldSecretExpiresAt`. */
async function newSecret(
	context: IHookFunctions,
	org: string,
	id: string,
	oldSecretExpiresAt: Date,
): Promise<Json<'WebhookSecretRotated'>> {
	const body: Schemas['WebhookRotateSecretRequest'] = {
		old_secret_expires_at: oldSecretExpiresAt.toISOString(),
	};
	const path = apiPath`/orgs/${org}/webhooks/${id}/rotate-secret`;
	return (await rotateSecret.call(context, 'POST', path, { body })).body;
}
