import fc from 'fast-check';
import { ERROR_STATUS } from '../../server/src/core/errors';
import { createOrg, type TestOrg } from '../support/fixtures';
import {
	ROUTES,
	describeRoute,
	resourcesOf,
	validBodyFor,
	type AnyRoute,
	type OrgResources,
} from '../support/route-table';
import { head, rawRequest } from '../support/raw-http';
import { startTestServer, type TestServer } from '../support/test-server';

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);

let server: TestServer;
let mine: TestOrg;
let theirs: TestOrg;
let ids: OrgResources;
let theirIds: OrgResources;
beforeAll(async () => {
	server = await startTestServer({ RATE_LIMIT_REQUESTS: '100000000' });
	mine = await createOrg(server);
	theirs = await createOrg(server);
	// Member operations target the second trainer, so the trainer key used by the cases stays valid.
	const members = (await mine.admin.get(`/orgs/${mine.id}/members`)).body as Array<{
		user_id: string;
		email: string;
	}>;
	ids = {
		...(await resourcesOf(mine)),
		userId: members.find((member) => member.email.startsWith('trainer2@'))!.user_id,
	};
	theirIds = await resourcesOf(theirs);
});
afterAll(() => server.stop());

/**
 * Everything a request could change: every change writes an event, and the tables' contents are
 * summed up too. The server's own events (actor `system`: an endpoint failing, a delivery given up)
 * come from the outbox whenever its attempts end, whatever request is running, so they are left out.
 */
function stateFingerprint(): string {
	return JSON.stringify(
		server.db
			.prepare(
				`SELECT (SELECT count(*) FROM events WHERE actor <> 'system') AS events,
				        (SELECT max(seq) FROM events WHERE actor <> 'system') AS last_event,
				        (SELECT count(*) FROM sessions) AS sessions, (SELECT group_concat(state || join_code) FROM sessions) AS session_states,
				        (SELECT count(*) FROM participants) AS participants, (SELECT count(*) FROM users WHERE removed_at IS NULL) AS members,
				        (SELECT group_concat(role) FROM users) AS roles, (SELECT count(*) FROM api_keys WHERE revoked_at IS NULL) AS active_keys,
				        (SELECT count(*) FROM labs) AS labs, (SELECT group_concat(status) FROM lab_versions) AS versions,
				        (SELECT count(*) FROM webhooks) AS webhooks, (SELECT group_concat(closed_at) FROM orgs) AS closed`,
			)
			.get(),
	);
}

const adversarialString = fc.oneof(
	fc.string(),
	fc.string({ unit: 'grapheme', maxLength: 40 }),
	fc.string({ unit: 'binary', maxLength: 40 }),
	fc.constantFrom(
		'',
		' ',
		'\u0000',
		'../../etc/passwd',
		'%00',
		'%',
		'<script>alert(1)</script>',
		"' OR '1'='1",
		'__proto__',
		'constructor',
		'prototype',
		'NaN',
		'Infinity',
		'-1',
		'0',
		'1e309',
		'１２３',
		'\uD800',
		'null',
		'true',
		'[]',
		'{}',
	),
	fc.string({ minLength: 2_000, maxLength: 20_000 }),
);
const anyJson = fc.jsonValue({ maxDepth: 4 });
const oddValue = fc.oneof(
	anyJson,
	adversarialString,
	fc.constantFrom(null, true, -1, 0, 1.5, 2 ** 53, -(2 ** 31), '10', '1000', '', [], {}),
	fc.integer().map(String),
);

function pathIdFor(name: keyof OrgResources) {
	return fc.oneof(
		{ weight: 3, arbitrary: fc.constant(ids[name]) },
		{ weight: 1, arbitrary: fc.constant(theirIds[name]) },
		{ weight: 1, arbitrary: fc.uuid() },
		{
			weight: 2,
			arbitrary: adversarialString
				.filter((value) => value.length > 0)
				.map((value) => encodeURIComponent(Buffer.from(value).toString())),
		},
		{
			weight: 1,
			arbitrary: fc.constantFrom(
				'%E0%A4%A',
				'%',
				'%%',
				'%2e%2e',
				'..',
				'.',
				'%00',
				'%FF',
				ids[name].toUpperCase(),
				`${ids[name]}x`,
				` ${ids[name]}`,
			),
		},
	);
}

function bodyFor(route: AnyRoute) {
	const valid = validBodyFor(route, mine) as Record<string, unknown> | undefined;
	const mutated = valid
		? fc
				.tuple(
					fc.constantFrom(...Object.keys(valid), '__proto__', 'constructor', 'extra'),
					oddValue,
				)
				.map(([field, value]) => JSON.stringify({ ...valid, [field]: value }))
		: fc.constant(undefined);
	return fc.oneof(
		fc.constant(undefined),
		fc.constant(valid ? JSON.stringify(valid) : undefined),
		mutated,
		anyJson.map((value) => JSON.stringify(value)),
		adversarialString,
		fc.constantFrom(
			'{"__proto__":{"role":"admin"}}',
			'{"constructor":{"prototype":{"role":"admin"}}}',
			'{"title":',
			'{"a":1,}',
			"{'a':1}",
			'\u0000',
			'null',
		),
		fc
			.integer({ min: 100, max: 20_000 })
			.map((depth) => `{"nested":${'['.repeat(depth)}${']'.repeat(depth)}}`),
	);
}

const requestArbitrary = fc.constantFrom(...ROUTES).chain((route) =>
	fc.record({
		route: fc.constant(route),
		pathIds: fc.record(
			Object.fromEntries(
				Object.keys(ids).map((name) => [name, pathIdFor(name as keyof OrgResources)]),
			),
		),
		query: fc.oneof(
			fc.constant(''),
			fc
				.dictionary(
					fc.constantFrom('limit', 'cursor', 'x', '__proto__', 'limit[]'),
					fc.oneof(adversarialString, fc.integer().map(String)),
					{ maxKeys: 3 },
				)
				.map((q) => new URLSearchParams(q).toString()),
			fc.constantFrom(
				'limit=1&limit=2',
				'limit=%',
				'cursor=%E0%A4%A',
				'limit=999999999999999999999',
				'limit=-0',
				'limit=0x10',
			),
		),
		body: bodyFor(route),
		// No valid admin key on closing the organization: it would end the run for every later case.
		key: fc.oneof(
			{
				weight: route.operationId === 'closeOrganization' ? 0 : 5,
				arbitrary: fc.constant('admin'),
			},
			{ weight: 4, arbitrary: fc.constant('trainer') },
			{ weight: 1, arbitrary: fc.constantFrom('other-admin', 'garbage', 'none') },
		),
		contentType: fc.constantFrom(
			'application/json',
			'application/json; charset=utf-8',
			'text/plain',
			'application/x-www-form-urlencoded',
			'multipart/form-data; boundary=x',
			'application/json; charset=utf-16',
			'application/merge-patch+json',
			undefined,
		),
		idempotencyKey: fc.option(
			adversarialString.map((value) => value.replace(/[^\x20-\x7e]/g, 'x').slice(0, 300)),
			{ nil: undefined },
		),
		extraHeader: fc.option(
			fc.constantFrom(
				['x-forwarded-for', '1.2.3.4'],
				['accept', 'text/html'],
				['accept-encoding', 'gzip'],
				['content-length', '5'],
			),
			{ nil: undefined },
		),
	}),
);

const keyFor = (name: string) =>
	({
		admin: mine.admin.key,
		trainer: mine.trainer.key,
		'other-admin': theirs.admin.key,
		garbage: 'tlk_garbage',
		none: null,
	})[name];

it(`answers ${RUNS.toLocaleString('en')} random and adversarial requests over every endpoint without a 5xx, always with the envelope, and changes nothing on a 4xx`, async () => {
	const seenRoutes = new Set<string>();
	const statuses = new Map<number, number>();
	await fc.assert(
		fc.asyncProperty(requestArbitrary, async (request) => {
			seenRoutes.add(describeRoute(request.route));
			const path = request.route.path.replace(
				/\{(\w+)\}/g,
				(_all: string, name: keyof OrgResources) => String(request.pathIds[name]),
			);
			const headers: Record<string, string> = {};
			const key = keyFor(request.key);
			if (key) headers.authorization = `Bearer ${key}`;
			if (request.contentType && request.body !== undefined)
				headers['content-type'] = request.contentType;
			if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey;
			if (request.extraHeader && request.extraHeader[0] !== 'content-length')
				headers[request.extraHeader[0]] = request.extraHeader[1];
			const before = stateFingerprint();
			const response = await fetch(
				`${server.url}${path}${request.query ? `?${request.query}` : ''}`,
				{
					method: request.route.method.toUpperCase(),
					headers,
					body: request.route.method === 'get' ? undefined : request.body,
				},
			);
			const text = await response.text();
			statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
			expect(response.status).toBeLessThan(500);
			if (response.status === 204) return;
			expect(response.headers.get('content-type')).toMatch(/^application\/json/);
			const body = JSON.parse(text);
			if (response.status >= 400) {
				expect(body).toEqual({
					error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }),
				});
				expect(
					Object.keys(body.error).every((field) => ['code', 'message', 'details'].includes(field)),
				).toBe(true);
				expect(ERROR_STATUS[body.error.code as keyof typeof ERROR_STATUS]).toBe(response.status);
				expect(stateFingerprint()).toBe(before);
			}
		}),
		{ numRuns: RUNS },
	);
	expect([...seenRoutes].sort()).toEqual(ROUTES.map(describeRoute).sort());
	// The cases must reach past the validation: successes and every kind of refusal occur.
	const distribution = Object.fromEntries([...statuses].sort(([a], [b]) => a - b));
	for (const status of [200, 201, 400, 401, 403, 404, 409])
		expect({ status, seen: (distribution[status] ?? 0) > 0 }).toEqual({ status, seen: true });
	expect(server.logs.filter((line) => / failed /.test(line))).toEqual([]);
}, 600_000);

const HEADER_RUNS = Math.max(100, Math.round(RUNS / 5));

const headerCase = fc.record({
	method: fc.constantFrom('GET', 'POST', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'PUT', 'TRACE'),
	target: fc.constantFrom(
		'/api/v1/me',
		'/api/v1/labs?limit=1',
		'/api/v1/sessions',
		'/api/v1/join',
		'http://evil.example/api/v1/labs?limit=1',
		'/healthz',
		'/api/v1/openapi.json',
		'*',
	),
	// Mostly well-formed, so that cases also get past the edge to the routes.
	host: fc.oneof(
		{
			weight: 4,
			arbitrary: fc.constantFrom(
				'localhost',
				'127.0.0.1:3000',
				'[::1]:80',
				'labs.example.com',
				'evil.example',
			),
		},
		{
			weight: 2,
			arbitrary: fc.constantFrom(
				'a:b:c',
				'',
				'exa mple',
				'[::1',
				'x:99999',
				'<x>',
				'x:0',
				'x:',
				':80',
				'[fe80::1%25eth0]',
				'a'.repeat(300),
			),
		},
		{
			weight: 1,
			arbitrary: fc.string({ maxLength: 30 }).map((value) => value.replace(/[\r\n]/g, '')),
		},
		{ weight: 1, arbitrary: fc.constant(null) },
	),
	expect: fc.option(fc.constantFrom('100-continue', 'nope', '', '100-CONTINUE', '200-ok'), {
		nil: null,
		freq: 3,
	}),
	contentType: fc.option(
		fc.constantFrom(
			'application/json',
			'application/json; charset=utf-7',
			'application/json; charset=utf-16',
			'application/json;charset="UTF-8"',
			'application/json; charset=',
			'text/plain',
			'application/json; charset=x'.padEnd(2000, 'x'),
		),
		{ nil: null },
	),
	body: fc.constantFrom(
		'',
		'{}',
		'{"title":"x"}',
		'{"join_code":"ABCDEFGH","email":"a@b.co","name":"N"}',
		'not json',
		'+ACI-',
	),
	contentLength: fc.constantFrom('exact', 'huge', 'negative', 'words', 'absent', 'double'),
	authorization: fc.constantFrom('admin', 'garbage', 'none', 'huge'),
	filler: fc.option(fc.integer({ min: 1, max: 40_000 }), { nil: null, freq: 3 }),
});

it(`answers ${HEADER_RUNS.toLocaleString('en')} requests with hostile headers (Host, Expect, Content-Length, charset, very long headers) without a 5xx, always with the envelope and nosniff`, async () => {
	const statuses = new Map<number, number>();
	await fc.assert(
		fc.asyncProperty(headerCase, async (c) => {
			const length = {
				exact: Buffer.byteLength(c.body),
				huge: 1_000_000_000,
				negative: -1,
				words: 'ten',
				absent: null,
				double: `${Buffer.byteLength(c.body)}, 5`,
			}[c.contentLength];
			const authorization = {
				admin: `Bearer ${mine.admin.key}`,
				garbage: 'Bearer tlk_garbage',
				none: null,
				huge: `Bearer ${'k'.repeat(70_000)}`,
			}[c.authorization];
			const request =
				head(c.method, c.target, {
					Host: c.host,
					Expect: c.expect,
					'Content-Type': c.contentType,
					'Content-Length': length,
					Authorization: authorization,
					'X-Filler': c.filler === null ? null : 'f'.repeat(c.filler),
					Connection: 'close',
				}) + (length === 1_000_000_000 ? c.body.slice(0, 3) : c.body);
			const before = stateFingerprint();
			const response = await rawRequest(server.port, request);
			response.connection.close();
			statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
			expect(response.status).toBeLessThan(500);
			expect(response.headers['x-content-type-options']).toBe('nosniff');
			if (response.status >= 400 && c.method !== 'HEAD') {
				expect(response.json).toEqual({
					error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }),
				});
				expect(ERROR_STATUS[response.json.error.code as keyof typeof ERROR_STATUS]).toBe(
					response.status,
				);
				expect(stateFingerprint()).toBe(before);
			}
		}),
		{ numRuns: HEADER_RUNS },
	);
	const distribution = Object.fromEntries([...statuses].sort(([a], [b]) => a - b));
	for (const status of [200, 400, 401, 404, 413, 417, 431])
		expect({ status, seen: (distribution[status] ?? 0) > 0 }).toEqual({ status, seen: true });
	expect(server.logs.filter((line) => / failed /.test(line))).toEqual([]);
}, 600_000);
