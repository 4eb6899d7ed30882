import type { IDataObject, IHookFunctions } from 'n8n-workflow';

/**
 * What the trigger keeps in the node's static data (stored by n8n with the workflow, for every
 * process): the endpoint it registered and its signing secret.
 */
export interface StoredEndpoint extends IDataObject {
	webhookId?: string;
	webhookSecret?: string;
	/** The secret the last re-key replaced, accepted until `previousSecretExpiresAt` (RFC 3339). */
	previousWebhookSecret?: string;
	previousSecretExpiresAt?: string;
	/** The workflow that registered it: a copy of the workflow carrying this static data is another. */
	webhookWorkflowId?: string;
	/** Registered for the editor's test URL while it listens: deleted, not held, when it stops. */
	listening?: boolean;
}

/**
 * How long a re-keyed endpoint's old secret goes on signing deliveries: far longer than a delivery
 * in flight lives (the API's timeout, and the 5 minutes a signature's timestamp is accepted).
 */
export const REKEY_OVERLAP_MS = 60 * 60 * 1000;

/** The secrets a delivery may be signed with now: the endpoint's, and one being replaced. */
export function acceptedSecrets(stored: StoredEndpoint, now: number): string[] {
	const secrets = typeof stored.webhookSecret === 'string' ? [stored.webhookSecret] : [];
	const { previousWebhookSecret: previous, previousSecretExpiresAt: until } = stored;
	if (typeof previous === 'string' && typeof until === 'string' && Date.parse(until) > now)
		secrets.push(previous);
	return secrets;
}

/** The stored endpoint, when this workflow registered it (not a copy's static data). */
export function ownEndpointId(context: IHookFunctions, stored: StoredEndpoint): string | undefined {
	if (typeof stored.webhookId !== 'string' || typeof stored.webhookSecret !== 'string')
		return undefined;
	const owner = stored.webhookWorkflowId;
	if (owner !== undefined && owner !== context.getWorkflow().id) return undefined;
	return stored.webhookId;
}

/** Forgets the endpoint (deleted, gone, or another workflow's). */
export function forgetEndpoint(stored: StoredEndpoint): void {
	delete stored.webhookId;
	delete stored.webhookSecret;
	delete stored.previousWebhookSecret;
	delete stored.previousSecretExpiresAt;
	delete stored.webhookWorkflowId;
	delete stored.listening;
}
