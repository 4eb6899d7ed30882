import { ApiError, notFound } from '../core/errors.ts';
import { isoAt } from '../core/clock.ts';
import type { Repositories } from '../repositories/index.ts';
import type { WebhookRow } from '../repositories/webhooks.ts';
import type { EventType } from '../schemas/events.ts';
import type { Webhook } from '../schemas/webhooks.ts';

/** The organization's endpoint `webhookId`, or 404. */
export function findEndpoint(repos: Repositories, orgId: string, webhookId: string): WebhookRow {
	const webhook = repos.webhooks.find(orgId, webhookId);
	if (!webhook) throw notFound('Webhook endpoint');
	return webhook;
}

/** The endpoint, which must be enabled and not held for anything to be sent to it (else 409). */
export function findSendingEndpoint(
	repos: Repositories,
	orgId: string,
	webhookId: string,
): WebhookRow {
	const webhook = findEndpoint(repos, orgId, webhookId);
	if (webhook.disabled_at !== null)
		throw new ApiError(
			'invalid_state',
			'This endpoint is disabled, so nothing is sent to it. Enable it first (PATCH with "disabled": false).',
		);
	if (webhook.held_since !== null)
		throw new ApiError(
			'invalid_state',
			webhook.held_reason === null
				? 'This endpoint is held: its receiver (such as an n8n workflow) is inactive, and its deliveries are kept until it is back. Activate the workflow first.'
				: `This endpoint is held: ${webhook.held_reason}`,
		);
	return webhook;
}

/** The endpoint as the API shows it at `now` (never its secret). */
export function toWebhook(now: number, row: WebhookRow): Webhook {
	const overlapping =
		row.previous_secret_expires_at !== null && row.previous_secret_expires_at > now;
	return {
		id: row.id,
		url: row.url,
		event_types: JSON.parse(row.event_types) as EventType[],
		...(row.description !== null ? { description: row.description } : {}),
		created_at: row.created_at,
		disabled_at: row.disabled_at,
		held_since: row.held_since,
		held_reason: row.held_reason,
		require_receipt: row.require_receipt === 1,
		previous_secret_expires_at: overlapping ? isoAt(row.previous_secret_expires_at!) : null,
	};
}
