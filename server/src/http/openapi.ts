import { z } from 'zod';
import { ApiKey, ApiKeyCreate, ApiKeyCreated } from '../schemas/api-keys.ts';
import {
	EventBatch,
	EventBatchRequest,
	EventBatchTaken,
	EventConsumer,
	EventConsumerCreate,
	EventConsumerDetail,
} from '../schemas/event-consumers.ts';
import { ActivityEvent, EventTypeCatalogue, EventTypeInfo } from '../schemas/events.ts';
import { Principal } from '../schemas/identity.ts';
import { Lab, LabCreate, LabVersion } from '../schemas/labs.ts';
import { Member, MemberCreate, MemberRoleUpdate } from '../schemas/members.ts';
import { ClosedOrg } from '../schemas/orgs.ts';
import {
	JoinCode,
	JoinRequest,
	JoinResult,
	Session,
	SessionCreate,
	SessionDetail,
} from '../schemas/sessions.ts';
import {
	Webhook,
	WebhookCreate,
	WebhookCreated,
	WebhookDelivery,
	WebhookDeliveryDetail,
	WebhookRecoverRequest,
	WebhookRecovery,
	WebhookRotateSecretRequest,
	WebhookSecretRotated,
	WebhookTestRequest,
	WebhookUpdate,
} from '../schemas/webhooks.ts';
import { WebhookHealth } from '../schemas/webhook-health.ts';
import { ERROR_STATUS, type ErrorCode } from '../core/errors.ts';
import { IDEMPOTENCY_TTL_MS } from '../services/idempotency.ts';
import { MAX_HEADER_BYTES } from './edge.ts';
import { MAX_BODY_BYTES } from './json-body.ts';
import { BOUNDS } from '../schemas/bounds.ts';
import type { AnyRoute } from './route.ts';
import { DELIVERY_HEADERS, eventComponents, webhooksSection } from './openapi-webhooks.ts';

type JsonObject = Record<string, unknown>;

/** The error envelope of every error response. */
const ErrorEnvelope = z.object({
	error: z.object({
		code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
		message: z.string(),
		details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
	}),
});

// Component names: every request body and response schema a route uses must be listed here.
const REQUEST_SCHEMAS = {
	MemberCreate,
	MemberRoleUpdate,
	SessionCreate,
	JoinRequest,
	LabCreate,
	ApiKeyCreate,
	WebhookCreate,
	WebhookUpdate,
	WebhookTestRequest,
	WebhookRecoverRequest,
	WebhookRotateSecretRequest,
	EventConsumerCreate,
	EventBatchRequest,
};
const RESPONSE_SCHEMAS = {
	Principal,
	Member,
	ActivityEvent,
	...eventComponents(),
	EventTypeInfo,
	EventTypeCatalogue,
	EventConsumer,
	EventConsumerDetail,
	EventBatch,
	EventBatchTaken,
	ClosedOrg,
	Session,
	SessionDetail,
	JoinCode,
	JoinResult,
	Lab,
	LabVersion,
	ApiKey,
	ApiKeyCreated,
	Webhook,
	WebhookCreated,
	WebhookDelivery,
	WebhookDeliveryDetail,
	WebhookHealth,
	WebhookRecovery,
	WebhookSecretRotated,
	Error: ErrorEnvelope,
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
	400: 'Malformed request',
	401: 'Missing, invalid or revoked API key',
	403: "The key's role may not do this",
	404: 'No such resource in your organization',
	409: 'Conflict with the current state',
	413: `Request body larger than ${MAX_BODY_BYTES / 1024} KB`,
	415: 'Request body in a charset other than UTF-8',
	429: 'Rate limited; retry after `Retry-After` seconds',
};

export function buildOpenApiDocument(
	routes: readonly AnyRoute[],
	options: { version: string; prefix: string },
): JsonObject {
	const requestNames = namesOf(REQUEST_SCHEMAS);
	const responseNames = namesOf(RESPONSE_SCHEMAS);
	const paths: Record<string, JsonObject> = {};
	for (const route of routes) {
		paths[route.path] ??= {};
		paths[route.path][route.method] = operation(route, requestNames, responseNames);
	}
	return {
		openapi: '3.1.0',
		info: {
			title: 'Training Lab API',
			version: options.version,
			license: { name: 'MIT', identifier: 'MIT' },
			description:
				'Manage members, sessions, labs, API keys and webhooks of a training organization. ' +
				'Lists return a bare JSON array and a `Link: <…>; rel="next"` header while more results exist. ' +
				`Bodies are UTF-8 JSON of at most ${MAX_BODY_BYTES / 1024} KB. Any request may also be answered 400 (malformed HTTP or \`Host\`, ` +
				'or a body sent to an endpoint that takes none), 408 (too slow), 413, 417 (unsupported `Expect`) or 431 ' +
				`(headers over ${MAX_HEADER_BYTES / 1024} KB), always with the error envelope. ` +
				`Every \`POST\` accepts an \`Idempotency-Key\` (${BOUNDS.idempotencyKey.min}–${BOUNDS.idempotencyKey.max} characters): the same key, route and body within ` +
				`${IDEMPOTENCY_TTL_MS / 3_600_000} hours replays the first response with \`Idempotent-Replayed: true\`; another body gets 409 ` +
				'`idempotency_conflict`. Every response of an endpoint below this prefix carries `RateLimit-Policy` and `RateLimit` ' +
				'headers; the answers given before a request reaches one (the 400, 408, 413, 417 and 431 above) do not.',
		},
		servers: [{ url: options.prefix }],
		security: [{ bearerAuth: [] }],
		paths,
		webhooks: webhooksSection(),
		components: {
			securitySchemes: {
				bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: `tlk_…`.' },
			},
			schemas: {
				...components(REQUEST_SCHEMAS, 'input'),
				...components(RESPONSE_SCHEMAS, 'output'),
			},
			parameters: DELIVERY_HEADERS,
			headers: {
				RateLimit: {
					description: 'Remaining requests and seconds until the window resets.',
					schema: { type: 'string' },
				},
				RateLimitPolicy: {
					description: 'The budget: requests `q` per window of `w` seconds.',
					schema: { type: 'string' },
				},
				RetryAfter: {
					description: 'Seconds to wait before retrying.',
					schema: { type: 'integer' },
				},
				Link: {
					description: 'URL of the next page as `<url>; rel="next"`, absent on the last page.',
					schema: { type: 'string' },
				},
			},
		},
	};
}

function operation(
	route: AnyRoute,
	requestNames: Map<z.ZodType, string>,
	responseNames: Map<z.ZodType, string>,
): JsonObject {
	const parameters = [
		...parametersOf(route.params, 'path'),
		...parametersOf(route.query, 'query'),
		...(route.method === 'post'
			? [
					{
						name: 'Idempotency-Key',
						in: 'header',
						required: false,
						schema: {
							type: 'string',
							minLength: BOUNDS.idempotencyKey.min,
							maxLength: BOUNDS.idempotencyKey.max,
						},
					},
				]
			: []),
	];
	const success: JsonObject = {
		description: route.success.description,
		headers: rateLimitHeaders(),
	};
	if (route.success.schema) {
		const item = ref(nameOf(route.success.schema, responseNames, route));
		success.content = {
			'application/json': { schema: route.success.list ? { type: 'array', items: item } : item },
		};
		if (route.success.list)
			success.headers = { ...rateLimitHeaders(), Link: { $ref: '#/components/headers/Link' } };
	}
	return {
		operationId: route.operationId,
		tags: [route.tag],
		summary: route.summary,
		...(route.description ? { description: route.description } : {}),
		'x-required-role': route.access === 'admin' ? 'admin' : 'admin or trainer',
		...(parameters.length > 0 ? { parameters } : {}),
		...(route.body
			? {
					requestBody: {
						required: !route.bodyOptional,
						content: {
							'application/json': { schema: ref(nameOf(route.body, requestNames, route)) },
						},
					},
				}
			: {}),
		responses: { [route.success.status]: success, ...errorResponses(route) },
	};
}

function errorResponses(route: AnyRoute): JsonObject {
	const codes = new Set<ErrorCode>(['unauthorized', 'rate_limited', ...(route.errors ?? [])]);
	if (route.params || route.query || route.body) codes.add('validation_failed');
	if (route.body)
		['malformed_json', 'payload_too_large', 'unsupported_media_type'].forEach((code) =>
			codes.add(code as ErrorCode),
		);
	if (route.params) codes.add('not_found');
	if (route.access === 'admin') codes.add('forbidden');
	if (route.method === 'post') codes.add('idempotency_conflict');
	const byStatus = new Map<number, ErrorCode[]>();
	for (const code of codes)
		byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
	const responses: JsonObject = {};
	for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
		responses[status] = {
			description: `${ERROR_DESCRIPTIONS[status]}: ${statusCodes.map((code) => `\`${code}\``).join(', ')}`,
			...(status === 429
				? {
						headers: {
							...rateLimitHeaders(),
							'Retry-After': { $ref: '#/components/headers/RetryAfter' },
						},
					}
				: {}),
			content: { 'application/json': { schema: ref('Error') } },
		};
	}
	return responses;
}

function parametersOf(schema: z.ZodType | undefined, location: 'path' | 'query'): JsonObject[] {
	if (!schema) return [];
	// A parameter is documented as the value it is parsed into (`limit` is an integer, not a string of
	// digits); whether it is required is a matter of the input.
	const toJson = (io: 'input' | 'output') =>
		z.toJSONSchema(schema, { io, target: 'draft-2020-12' }) as JsonObject;
	const properties = (toJson('output').properties ?? {}) as Record<string, JsonObject>;
	const required = new Set((toJson('input').required ?? []) as string[]);
	return Object.entries(properties).map(([name, { description, ...property }]) => ({
		name,
		in: location,
		required: location === 'path' || required.has(name),
		...(description ? { description } : {}),
		schema: property,
	}));
}

function components(
	schemas: Record<string, z.ZodType>,
	io: 'input' | 'output',
): Record<string, JsonObject> {
	const registry = z.registry<{ id: string }>();
	for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
	const { schemas: generated } = z.toJSONSchema(registry, {
		io,
		target: 'draft-2020-12',
		uri: (id) => `#/components/schemas/${id}`,
	});
	return Object.fromEntries(
		Object.entries(generated).map(([id, { $schema: _schema, $id: _id, ...schema }]) => [
			id,
			schema as JsonObject,
		]),
	);
}

function namesOf(schemas: Record<string, z.ZodType>): Map<z.ZodType, string> {
	return new Map(Object.entries(schemas).map(([name, schema]) => [schema, name]));
}

function nameOf(schema: z.ZodType, names: Map<z.ZodType, string>, route: AnyRoute): string {
	const name = names.get(schema);
	if (!name) throw new Error(`${route.operationId}: schema has no component name in openapi.ts`);
	return name;
}

const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });

function rateLimitHeaders(): JsonObject {
	return {
		RateLimit: { $ref: '#/components/headers/RateLimit' },
		'RateLimit-Policy': { $ref: '#/components/headers/RateLimitPolicy' },
	};
}
