import { defineListRoute, defineRoute } from '../http/route.ts';
import { listQuery } from '../schemas/common.ts';
import { OrgParams } from '../schemas/orgs.ts';
import {
	Webhook,
	WebhookCreate,
	WebhookCreated,
	WebhookDelivery,
	WebhookParams,
} from '../schemas/webhooks.ts';

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
		handle: ({ services, caller, page }) => services.webhooks.list(caller.org.id, page),
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
		precheck: ({ services, body }) => services.webhooks.assertUrlAllowed(body.url),
		handle: ({ services, actor, body }) => services.webhooks.create(actor, body),
	}),
	defineRoute({
		method: 'get',
		path: '/orgs/{orgId}/webhooks/{webhookId}',
		operationId: 'getWebhook',
		tag: 'Webhooks',
		summary: 'Get a webhook endpoint',
		description: 'The endpoint without its secret; `disabled_at` is set once it answered 410 Gone.',
		access: 'admin',
		params: WebhookParams,
		success: { status: 200, description: 'The endpoint.', schema: Webhook },
		handle: ({ services, caller, params }) =>
			services.webhooks.get(caller.org.id, params.webhookId),
	}),
	defineRoute({
		method: 'delete',
		path: '/orgs/{orgId}/webhooks/{webhookId}',
		operationId: 'deleteWebhook',
		tag: 'Webhooks',
		summary: 'Delete a webhook endpoint',
		description: 'Pending deliveries to it are dropped. Emits `webhook.deleted`.',
		access: 'admin',
		params: WebhookParams,
		success: { status: 204, description: 'Deleted.' },
		handle: ({ services, actor, params }) => services.webhooks.delete(actor, params.webhookId),
	}),
	defineListRoute({
		path: '/orgs/{orgId}/webhooks/{webhookId}/deliveries',
		operationId: 'listWebhookDeliveries',
		tag: 'Webhooks',
		summary: 'List the deliveries to a webhook endpoint, newest first',
		description:
			'Each delivery is one event sent (and retried) to this endpoint, with its state and last attempt.',
		access: 'admin',
		params: WebhookParams,
		query: listQuery(100),
		success: { description: 'A page of deliveries.', schema: WebhookDelivery },
		handle: ({ services, caller, params, page }) =>
			services.webhooks.listDeliveries(caller.org.id, params.webhookId, page),
	}),
];
