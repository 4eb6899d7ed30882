import { createConfig, lintFromString } from '@redocly/openapi-core';
import { ApiClient } from '../../tooling/api/client.ts';
import { EVENT_TYPES } from '../../server/src/schemas/events.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let server: TestServer;
let document: any;
beforeAll(async () => {
	server = await startTestServer();
	const response = await new ApiClient(server.url).get('/openapi.json');
	expect(response.status).toBe(200);
	document = response.body;
});
afterAll(() => server.stop());

// The endpoints of the specification (../shared/spec/training-lab-api.md, its resource tables) and
// those the contract adds (contract.md §2 and §4), written out here rather than taken from the
// route table the document is built from.
const SPECIFIED = [
	'GET /me',
	'GET /orgs/{orgId}/members',
	'PATCH /orgs/{orgId}/members/{userId}',
	'DELETE /orgs/{orgId}/members/{userId}',
	'GET /orgs/{orgId}/events',
	'GET /sessions',
	'POST /sessions',
	'GET /sessions/{sessionId}',
	'DELETE /sessions/{sessionId}',
	'POST /sessions/{sessionId}/join-code',
	'GET /labs',
	'GET /labs/{labId}/versions',
	'GET /orgs/{orgId}/api-keys',
	'POST /orgs/{orgId}/api-keys',
	'GET /orgs/{orgId}/webhooks',
	'POST /orgs/{orgId}/webhooks',
];
const EXTENSIONS = [
	'POST /orgs/{orgId}/members',
	'POST /orgs/{orgId}/close',
	'POST /sessions/{sessionId}/start',
	'POST /sessions/{sessionId}/end',
	'POST /join',
	'POST /labs',
	'POST /labs/{labId}/versions',
	'POST /labs/{labId}/versions/{versionId}/publish',
	'DELETE /orgs/{orgId}/api-keys/{keyId}',
	'GET /orgs/{orgId}/webhooks/{webhookId}',
	'DELETE /orgs/{orgId}/webhooks/{webhookId}',
	'GET /orgs/{orgId}/webhooks/{webhookId}/deliveries',
	'GET /orgs/{orgId}/webhooks/{webhookId}/deliveries/{deliveryId}',
	'GET /orgs/{orgId}/webhooks/{webhookId}/health',
	'PATCH /orgs/{orgId}/webhooks/{webhookId}',
	'POST /orgs/{orgId}/webhooks/{webhookId}/test',
	'POST /orgs/{orgId}/webhooks/{webhookId}/deliveries/{deliveryId}/resend',
	'POST /orgs/{orgId}/webhooks/{webhookId}/recover',
	'POST /orgs/{orgId}/webhooks/{webhookId}/rotate-secret',
	'GET /event-types',
	'POST /orgs/{orgId}/event-consumers',
	'GET /orgs/{orgId}/event-consumers',
	'GET /orgs/{orgId}/event-consumers/{consumerId}',
	'DELETE /orgs/{orgId}/event-consumers/{consumerId}',
	'POST /orgs/{orgId}/event-consumers/{consumerId}/batches',
	'DELETE /orgs/{orgId}/event-consumers/{consumerId}/batches/{batchId}',
];

function refsIn(value: unknown): string[] {
	if (Array.isArray(value)) return value.flatMap(refsIn);
	if (typeof value !== 'object' || value === null) return [];
	return Object.entries(value).flatMap(([key, inner]) =>
		key === '$ref' ? [inner as string] : refsIn(inner),
	);
}

describe('GET /openapi.json', () => {
	it('is an OpenAPI 3.1 document with every endpoint, extensions included', () => {
		expect(document.openapi).toBe('3.1.0');
		// The package's licence, as Redocly's recommended rules ask of an API description.
		expect(document.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
		const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
			Object.keys(methods as object).map((m) => `${m.toUpperCase()} ${path}`),
		);
		expect(operations.sort()).toEqual([...SPECIFIED, ...EXTENSIONS].sort());
		const operationIds = Object.values(document.paths).flatMap((methods) =>
			Object.values(methods as Record<string, { operationId: string }>).map(
				(operation) => operation.operationId,
			),
		);
		expect(new Set(operationIds).size).toBe(operations.length);
	});

	it("passes Redocly's recommended rules without a warning", async () => {
		const problems = await lintFromString({
			source: JSON.stringify(document),
			absoluteRef: 'openapi.json',
			config: await createConfig({ extends: ['recommended'] }),
		});
		expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message}`)).toEqual([]);
	});

	it('describes the delivery of every event type under webhooks, signed with the three headers', () => {
		expect(Object.keys(document.webhooks)).toEqual([...EVENT_TYPES]);
		const headers = Object.values(document.components.parameters).map(
			(parameter: any) => `${parameter.in} ${parameter.name} ${parameter.required}`,
		);
		expect(headers).toEqual([
			'header webhook-id true',
			'header webhook-timestamp true',
			'header webhook-signature true',
		]);
		const removed = document.webhooks['member.removed'].post;
		expect(removed.security).toEqual([]);
		expect(removed.parameters).toHaveLength(3);
		const body = removed.requestBody.content['application/json'].schema.$ref.split('/').at(-1);
		const delivery = document.components.schemas[body];
		expect(Object.keys(delivery.properties).sort()).toEqual(
			['actor', 'data', 'id', 'occurred_at', 'org_id', 'resend', 'test', 'type'].sort(),
		);
		expect(delivery.properties.type.const).toBe('member.removed');
		const data = document.components.schemas[delivery.properties.data.$ref.split('/').at(-1)];
		expect(data.required.sort()).toEqual(['email', 'role', 'user_id']);
		expect(data.properties.email.description).toEqual(expect.any(String));
		expect(document.components.schemas.ActivityEvent.oneOf).toHaveLength(EVENT_TYPES.length);
	});

	it('resolves every $ref', () => {
		for (const ref of refsIn(document)) {
			const [, section, kind, name] = ref.split('/');
			expect(section).toBe('components');
			expect(document.components[kind][name]).toBeDefined();
		}
	});

	it('documents request bodies from the validating zod schemas', () => {
		const create = document.components.schemas.SessionCreate;
		expect(create.required.sort()).toEqual(['capacity', 'lab_version_id', 'title']);
		expect(create.properties.capacity).toMatchObject({
			type: 'integer',
			minimum: 1,
			maximum: 1000,
		});
		expect(create.properties.title).toMatchObject({ minLength: 1, maxLength: 200 });
		expect(document.components.schemas.ApiKeyCreate.properties.role.enum).toEqual([
			'admin',
			'trainer',
		]);
		const listSessions = document.paths['/sessions'].get;
		expect(
			listSessions.parameters.find((p: { name: string }) => p.name === 'limit').schema,
		).toMatchObject({ minimum: 1, maximum: 200, default: 100 });
		expect(listSessions.responses['200'].content['application/json'].schema.type).toBe('array');
		expect(listSessions.responses['200'].headers.Link).toBeDefined();
	});

	it('documents roles, error codes, the bearer scheme and Idempotency-Key', () => {
		const close = document.paths['/orgs/{orgId}/close'].post;
		expect(close['x-required-role']).toBe('admin');
		expect(Object.keys(close.responses).sort()).toEqual(
			['200', '401', '403', '404', '409', '429', '400'].sort(),
		);
		expect(close.parameters.map((p: { name: string }) => p.name)).toContain('Idempotency-Key');
		expect(document.components.securitySchemes.bearerAuth).toMatchObject({
			type: 'http',
			scheme: 'bearer',
		});
		expect(document.components.schemas.Error.properties.error.properties.code.enum).toContain(
			'session_full',
		);
	});
});
