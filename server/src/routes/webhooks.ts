import { defineListRoute, defineRoute } from '../http/route.ts';
import { listQuery } from '../schemas/common.ts';
import { OrgParams } from '../schemas/orgs.ts';
import {
	DeliveryListQuery,
	DeliveryParams,
	Webhook,
	WebhookCreate,
	WebhookCreated,
	WebhookDelivery,
	WebhookDeliveryDetail,
	WebhookParams,
	WebhookRecoverRequest,
	WebhookRecovery,
	WebhookRotateSecretRequest,
	WebhookSecretRotated,
	WebhookTestRequest,
	WebhookUpdate,
} from '../schemas/webhooks.ts';
import { WebhookHealth } from '../schemas/webhook-health.ts';

export const webhookRoutes = [
	defineListRoute({
		path: '/orgs/{orgId}/webhooks',
		operationId: 'listWebhooks',
		tag: 'Webhooks',
		summary: 'List webhook endpoints',
		access: 'admin',
		params: OrgParams,
		query: listQuery(100),
		success: { description: 'A page of endpoints.', schema: Webhook },
		handle: ({ services, caller, page }) => services.webhookEndpoints.list(caller.org.id, page),
	}),
	defineRoute({
		method: 'post',
		path: '/orgs/{orgId}/webhooks',
		operationId: 'createWebhook',
		tag: 'Webhooks',
		summary: 'Create a webhook endpoint',
		description:
			'The URL must be https and resolve only to public addresses (unless the server runs with ' +
			'`WEBHOOK_ALLOW_INSECURE_URLS=true`). The signing `secret` is in this response only. Emits `webhook.created`.',
		access: 'admin',
		params: OrgParams,
		body: WebhookCreate,
		success: {
			status: 201,
			description: 'The new endpoint, with its secret shown once.',
			schema: WebhookCreated,
		},
		errors: ['url_taken', 'webhook_limit_reached'],
		secretFields: ['secret'],
		precheck: ({ services, body }) => services.webhookEndpoints.assertUrlAllowed(body.url),
		handle: ({ services, actor, body }) => services.webhookEndpoints.create(actor, body),
	}),
	defineRoute({
		method: 'get',
		path: '/orgs/{orgId}/webhooks/{webhookId}',
		operationId: 'getWebhook',
		tag: 'Webhooks',
		summary: 'Get a webhook endpoint',
		description:
			'The endpoint without its secret; `disabled_at` is set while it is disabled (by a person, or after it answered ' +
			'410 Gone), `held_since` while its receiver holds its deliveries.',
		access: 'admin',
		params: WebhookParams,
		success: { status: 200, description: 'The endpoint.', schema: Webhook },
		handle: ({ services, caller, params }) =>
			services.webhookEndpoints.get(caller.org.id, params.webhookId),
	}),
	defineRoute({
		method: 'patch',
		path: '/orgs/{orgId}/webhooks/{webhookId}',
		operationId: 'updateWebhook',
		tag: 'Webhooks',
		summary: 'Change a webhook endpoint, disable or enable it, hold or release it',
		description:
			'Any of `url`, `event_types`, `description`, `disabled`, `held` and `require_receipt`, validated as at ' +
			'creation. Disabling (a person pausing it) gives up its pending and failed deliveries, and while it is ' +
			'disabled every event it subscribes to is kept as a given-up delivery that was never sent: after ' +
			'`disabled: false` (which also enables an endpoint that answered 410 Gone), `POST …/recover` sends them. ' +
			'Holding is for the receiver itself, while it is away (an n8n workflow deactivated or being saved): its ' +
			'deliveries are kept unsent, including retries that fall due, and releasing it sends them, or, with ' +
			'`skip_held_events`, gives up (recoverably) those of events that happened while it was held. Releasing is ' +
			'refused with `webhook_limit_reached` when the organization has its most endpoints that are not held. ' +
			'Emits `webhook.updated` with each change, unless nothing changed.',
		access: 'admin',
		params: WebhookParams,
		body: WebhookUpdate,
		success: { status: 200, description: 'The endpoint, without its secret.', schema: Webhook },
		errors: ['url_taken', 'webhook_limit_reached'],
		precheck: async ({ services, body }) => {
			if (body.url !== undefined) await services.webhookEndpoints.assertUrlAllowed(body.url);
		},
		handle: ({ services, actor, params, body }) =>
			services.webhookEndpoints.update(actor, params.webhookId, body),
	}),
	defineRoute({
		method: 'post',
		path: '/orgs/{orgId}/webhooks/{webhookId}/test',
		operationId: 'sendWebhookTestEvent',
		tag: 'Webhooks',
		summary: 'Send a test event to a webhook endpoint',
		description:
			'Queues, for this endpoint only, a signed event of a type it subscribes to with every field a real one has and ' +
			'sample values (`example.com` addresses, ids of the form `00000000-0000-4000-8000-…`), marked `"test": true` in ' +
			'its body and `test` in the deliveries list. Nothing in the organization changes; the event is not in the ' +
			'activity log. Emits `webhook.test_sent`.',
		access: 'admin',
		params: WebhookParams,
		body: WebhookTestRequest,
		success: { status: 202, description: 'The queued delivery.', schema: WebhookDelivery },
		errors: ['invalid_state'],
		handle: ({ services, actor, params, body }) =>
			services.deliveryOperations.sendTest(actor, params.webhookId, body.event_type),
	}),
	defineRoute({
		method: 'post',
		path: '/orgs/{orgId}/webhooks/{webhookId}/deliveries/{deliveryId}/resend',
		operationId: 'resendWebhookDelivery',
		tag: 'Webhooks',
		summary: 'Send a delivery again now',
		description:
			'Whatever its status: the same event (same `id` and `webhook-id`) is sent again now on a fresh retry schedule, ' +
			'its body saying which resend it is (`"resend": n`), so a receiver can tell a resend a person asked for from an ' +
			'automatic retry. Every earlier attempt stays in its attempt log. Emits `webhook.delivery_resent`.',
		access: 'admin',
		params: DeliveryParams,
		success: { status: 202, description: 'The delivery, due now.', schema: WebhookDelivery },
		errors: ['invalid_state'],
		handle: ({ services, actor, params }) =>
			services.deliveryOperations.resend(actor, params.webhookId, params.deliveryId),
	}),
	defineRoute({
		method: 'post',
		path: '/orgs/{orgId}/webhooks/{webhookId}/recover',
		operationId: 'recoverWebhookDeliveries',
		tag: 'Webhooks',
		summary: 'Send again every failed or given-up delivery since a time',
		description:
			'Every delivery of this endpoint whose event occurred at or after `since` and that is `failed` or `exhausted` ' +
			'(including those kept while the endpoint was disabled) is sent again, due now on a fresh retry schedule, at ' +
			'the pace the endpoint answers (`WEBHOOK_ENDPOINT_CONCURRENCY` in flight). Bodies are as before: a recovered ' +
			'delivery is a retry, not a resend. Emits `webhook.deliveries_recovered`.',
		access: 'admin',
		params: WebhookParams,
		body: WebhookRecoverRequest,
		success: {
			status: 202,
			description: 'How many deliveries were queued.',
			schema: WebhookRecovery,
		},
		errors: ['invalid_state'],
		handle: ({ services, actor, params, body }) =>
			services.deliveryOperations.recover(actor, params.webhookId, body.since),
	}),
	defineRoute({
		method: 'delete',
		path: '/orgs/{orgId}/webhooks/{webhookId}',
		operationId: 'deleteWebhook',
		tag: 'Webhooks',
		summary: 'Delete a webhook endpoint',
		description:
			'Pending deliveries to it are dropped. Emits `webhook.deleted` (`reason` null; the server deletes an ' +
			'endpoint held too long itself, saying why).',
		access: 'admin',
		params: WebhookParams,
		success: { status: 204, description: 'Deleted.' },
		handle: ({ services, actor, params }) =>
			services.webhookEndpoints.delete(actor, params.webhookId),
	}),
	defineListRoute({
		path: '/orgs/{orgId}/webhooks/{webhookId}/deliveries',
		operationId: 'listWebhookDeliveries',
		tag: 'Webhooks',
		summary: 'List the deliveries to a webhook endpoint, newest first',
		description:
			'Each delivery is one event sent (and retried) to this endpoint, with its state and last attempt. ' +
			"Filter by `status`, `event_type`, `test` and the event's time (`since`, `until`); the `Link` of the next page keeps the filters. " +
			"Each attempt's answer is in `GET …/deliveries/{deliveryId}`.",
		access: 'admin',
		params: WebhookParams,
		query: DeliveryListQuery,
		success: { description: 'A page of deliveries.', schema: WebhookDelivery },
		handle: ({
			services,
			caller,
			params,
			page,
			query: { status, event_type, test, since, until },
		}) =>
			services.deliveryOperations.listDeliveries(caller.org.id, params.webhookId, page, {
				statuses: status,
				types: event_type,
				test,
				since,
				until,
			}),
	}),
	defineRoute({
		method: 'get',
		path: '/orgs/{orgId}/webhooks/{webhookId}/deliveries/{deliveryId}',
		operationId: 'getWebhookDelivery',
		tag: 'Webhooks',
		summary: 'Get one delivery with every attempt and the answer each got',
		description:
			'Each attempt says what started it (`cause`), how long it took, and what the receiver answered: its status, the headers that say what answered and why (never cookies or credentials), and the first 4 KB of its body (`body_truncated` when it was longer).',
		access: 'admin',
		params: DeliveryParams,
		success: { status: 200, description: 'The delivery.', schema: WebhookDeliveryDetail },
		handle: ({ services, caller, params }) =>
			services.deliveryOperations.getDelivery(caller.org.id, params.webhookId, params.deliveryId),
	}),
	defineRoute({
		method: 'get',
		path: '/orgs/{orgId}/webhooks/{webhookId}/health',
		operationId: 'getWebhookHealth',
		tag: 'Webhooks',
		summary: "An endpoint's health: what waits, and its attempts over the last hour and day",
		description:
			"How many deliveries wait (due, retrying, or held) and since when the oldest one's event; the attempts of " +
			'the last hour in 12 points of 5 minutes and of the last day in 24 points of an hour, the current one ' +
			'included, each with how many were delivered and the mean answer time of those. Counted as the outbox ' +
			'records each attempt, so it is read without going through the attempt log.',
		access: 'admin',
		params: WebhookParams,
		success: { status: 200, description: "The endpoint's health.", schema: WebhookHealth },
		handle: ({ services, caller, params }) =>
			services.deliveryOperations.health(caller.org.id, params.webhookId),
	}),
	defineRoute({
		method: 'post',
		path: '/orgs/{orgId}/webhooks/{webhookId}/rotate-secret',
		operationId: 'rotateWebhookSecret',
		tag: 'Webhooks',
		summary: "Replace an endpoint's signing secret",
		description:
			'The new secret is in this response only. Until the old one expires (`old_secret_expires_at`: 24 hours by ' +
			'default, at most 7 days; a time not in the future ends it at once) every delivery carries a signature with ' +
			'each, `v1,<new> v1,<old>`, so a receiver that verifies either goes on verifying while it changes over. ' +
			'Rotating again ends the older secret at once. Emits `webhook.secret_rotated`. The body may be left out.',
		access: 'admin',
		params: WebhookParams,
		body: WebhookRotateSecretRequest,
		bodyOptional: true,
		success: {
			status: 200,
			description: 'The endpoint with its new secret, shown once.',
			schema: WebhookSecretRotated,
		},
		secretFields: ['secret'],
		handle: ({ services, actor, params, body }) =>
			services.webhookEndpoints.rotateSecret(actor, params.webhookId, body.old_secret_expires_at),
	}),
];
