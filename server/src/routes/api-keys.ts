import { defineListRoute, defineRoute } from '../http/route.ts';
import { ApiKey, ApiKeyCreate, ApiKeyCreated, ApiKeyParams } from '../schemas/api-keys.ts';
import { listQuery } from '../schemas/common.ts';
import { OrgParams } from '../schemas/orgs.ts';

export const apiKeyRoutes = [
	defineListRoute({
		path: '/orgs/{orgId}/api-keys',
		operationId: 'listApiKeys',
		tag: 'API keys',
		summary: 'List API keys',
		description: 'Active and revoked keys; never the key itself.',
		access: 'admin',
		params: OrgParams,
		query: listQuery(100),
		success: { description: 'A page of keys.', schema: ApiKey },
		handle: ({ services, caller, page }) => services.apiKeys.list(caller.org.id, page),
	}),
	defineRoute({
		method: 'post',
		path: '/orgs/{orgId}/api-keys',
		operationId: 'createApiKey',
		tag: 'API keys',
		summary: 'Create an API key',
		description:
			'The key belongs to the calling user and never acts above their role. The full `key` is in this ' +
			'response only; a replayed idempotent request returns the key without it. Emits `api_key.created`.',
		access: 'admin',
		params: OrgParams,
		body: ApiKeyCreate,
		success: {
			status: 201,
			description: 'The new key, with the full key shown once.',
			schema: ApiKeyCreated,
		},
		errors: ['name_taken'],
		secretFields: ['key'],
		handle: ({ services, actor, body }) => services.apiKeys.create(actor, body),
	}),
	defineRoute({
		method: 'delete',
		path: '/orgs/{orgId}/api-keys/{keyId}',
		operationId: 'revokeApiKey',
		tag: 'API keys',
		summary: 'Revoke an API key',
		description:
			'The key gets 401 from now on and stays in the list with `revoked_at`. Emits `api_key.revoked`.',
		access: 'admin',
		params: ApiKeyParams,
		success: { status: 204, description: 'Revoked (also when it already was).' },
		handle: ({ services, actor, params }) => services.apiKeys.revoke(actor, params.keyId),
	}),
];
