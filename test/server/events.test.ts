import { Webhook } from 'standardwebhooks';
import {
	EVENT_CATALOGUE,
	EVENT_SCHEMAS,
	EVENT_TYPES,
	eventSchemaName,
	type EventType,
} from '../../server/src/schemas/events.ts';
import { openApiContract } from '../support/openapi-contract.ts';
import { createOrg, sessionInput, type TestOrg, serverWithOrg } from '../support/fixtures.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { Receiver } from '../support/receiver.ts';
import { NOT_REGISTERED_GRACE_MS, NOT_REGISTERED_REASON } from '../../server/src/outbox/outbox.ts';
import { type TestServer } from '../support/test-server.ts';
import { eventually } from '../../tooling/eventually.ts';
import { ApiClient } from '../../tooling/api/client.ts';

let server: TestServer;
let org: TestOrg;
let receiver: Receiver;
let contract: ReturnType<typeof openApiContract>;
beforeAll(async () => {
	receiver = await Receiver.start();
	({ server, org } = await serverWithOrg({ WEBHOOK_ALLOW_INSECURE_URLS: 'true' }));
	contract = openApiContract((await org.admin.get('/openapi.json')).body);
});
afterAll(async () => {
	await server.stop();
	await receiver.stop();
});

/** The data of a real event of each type, as the first test records them. */
const realData = new Map<string, Record<string, unknown>>();

/** An event fits its type's zod schema and the OpenAPI document's schema of it (no field more or less). */
function expectFitsItsSchema(event: { type: string }) {
	const type = event.type as EventType;
	expect({ type, problems: EVENT_SCHEMAS[type].safeParse(event).error?.issues ?? [] }).toEqual({
		type,
		problems: [],
	});
	const pointer = `#/components/schemas/${eventSchemaName(type)}Event`;
	expect({ type, problems: contract.validate(pointer, event) }).toEqual({ type, problems: [] });
}

async function newestEvents(count: number) {
	return (await org.admin.get(`/orgs/${org.id}/events?limit=${count}`)).body as Array<{
		id: string;
		type: string;
		actor: string;
		data: Record<string, unknown>;
	}>;
}

/** Runs a change and returns the events it added (newest first). */
async function eventsOf(change: () => Promise<{ status: number }>, expectedStatus: number) {
	const before = (await newestEvents(1))[0];
	const response = await change();
	expect(response.status).toBe(expectedStatus);
	const recent = await newestEvents(20);
	const seenBefore = recent.findIndex((e) => JSON.stringify(e) === JSON.stringify(before));
	if (seenBefore < 0)
		throw new Error(
			'the newest event from before the change is not among the 20 newest: the change wrote too many events',
		);
	return recent.slice(0, seenBefore);
}

describe('activity log', () => {
	it('records exactly one event per change, for every event type, with the actor e-mail and no secrets', async () => {
		const seen = new Set<string>();
		const expectOne = async (
			type: string,
			change: () => Promise<{ status: number; body?: any }>,
			status: number,
		) => {
			const events = await eventsOf(change, status);
			expect(events.map((e) => e.type)).toEqual([type]);
			expectFitsItsSchema(events[0]);
			seen.add(type);
			realData.set(type, events[0].data);
			return events[0];
		};
		const admin = org.admin;
		const member = (
			await expectOne(
				'member.added',
				() =>
					admin.post(`/orgs/${org.id}/members`, { email: 'm@x.test', name: 'M', role: 'trainer' }),
				201,
			)
		).data;
		expect(member).toEqual({
			user_id: expect.any(String),
			email: 'm@x.test',
			name: 'M',
			role: 'trainer',
		});
		await expectOne(
			'member.role_changed',
			() => admin.patch(`/orgs/${org.id}/members/${member.user_id}`, { role: 'admin' }),
			200,
		);
		const removed = await expectOne(
			'member.removed',
			() => admin.delete(`/orgs/${org.id}/members/${member.user_id}`),
			204,
		);
		expect(removed.data).toEqual({ user_id: member.user_id, email: 'm@x.test', role: 'admin' });

		const lab = (
			await expectOne(
				'lab.created',
				() => admin.post('/labs', { name: 'Evented', tier: 'vm' }),
				201,
			)
		).data;
		let versionId = '';
		const versionEvent = await expectOne(
			'lab_version.created',
			async () => {
				const response = await admin.post(`/labs/${lab.lab_id}/versions`);
				versionId = response.body.id;
				return response;
			},
			201,
		);
		expect(versionEvent.data).toEqual({ lab_id: lab.lab_id, version_id: versionId, version: 1 });
		await expectOne(
			'lab_version.published',
			() => admin.post(`/labs/${lab.lab_id}/versions/${versionId}/publish`),
			200,
		);

		let sessionId = '';
		await expectOne(
			'session.created',
			async () => {
				const response = await org.trainer.post(
					'/sessions',
					sessionInput(org, { lab_version_id: versionId }),
				);
				sessionId = response.body.id;
				return response;
			},
			201,
		);
		let joinCode = '';
		const rotated = await expectOne(
			'session.join_code_rotated',
			async () => {
				const response = await org.trainer.post(`/sessions/${sessionId}/join-code`);
				joinCode = response.body.join_code;
				return response;
			},
			200,
		);
		expect(JSON.stringify(rotated)).not.toContain(joinCode);
		const joined = await expectOne(
			'participant.joined',
			() => org.trainer.post('/join', { join_code: joinCode, email: 'p@x.test', name: 'P' }),
			201,
		);
		expect(joined.actor).toBe(org.trainerEmail);
		await expectOne('session.started', () => org.trainer.post(`/sessions/${sessionId}/start`), 200);
		await expectOne('session.ended', () => org.trainer.post(`/sessions/${sessionId}/end`), 200);
		await expectOne('session.deleted', () => org.trainer.delete(`/sessions/${sessionId}`), 204);

		let key = '';
		let keyId = '';
		const keyCreated = await expectOne(
			'api_key.created',
			async () => {
				const response = await admin.post(`/orgs/${org.id}/api-keys`, {
					name: 'evented',
					role: 'trainer',
				});
				key = response.body.key;
				keyId = response.body.id;
				return response;
			},
			201,
		);
		expect(JSON.stringify(keyCreated)).not.toContain(key);
		await expectOne(
			'api_key.revoked',
			() => admin.delete(`/orgs/${org.id}/api-keys/${keyId}`),
			204,
		);

		let secret = '';
		let webhookId = '';
		const webhookCreated = await expectOne(
			'webhook.created',
			async () => {
				const response = await admin.post(`/orgs/${org.id}/webhooks`, {
					url: 'http://127.0.0.1:9/events',
					event_types: ['org.closed'],
				});
				secret = response.body.secret;
				webhookId = response.body.id;
				return response;
			},
			201,
		);
		expect(JSON.stringify(webhookCreated)).not.toContain(secret);
		const webhookPath = `/orgs/${org.id}/webhooks/${webhookId}`;
		const updated = await expectOne(
			'webhook.updated',
			() => admin.patch(webhookPath, { event_types: ['org.closed', 'lab.created'] }),
			200,
		);
		expect(updated.data).toEqual({
			webhook_id: webhookId,
			url: 'http://127.0.0.1:9/events',
			changes: { event_types: { from: ['org.closed'], to: ['org.closed', 'lab.created'] } },
		});
		// The test event itself is not in the log: only that a person sent one.
		let deliveryId = '';
		const testSent = await expectOne(
			'webhook.test_sent',
			async () => {
				const response = await admin.post(`${webhookPath}/test`, { event_type: 'lab.created' });
				deliveryId = response.body.id;
				return response;
			},
			202,
		);
		expect(testSent.data).toMatchObject({ event_type: 'lab.created', delivery_id: deliveryId });
		const resent = await expectOne(
			'webhook.delivery_resent',
			() => admin.post(`${webhookPath}/deliveries/${deliveryId}/resend`),
			202,
		);
		expect(resent.data).toMatchObject({ delivery_id: deliveryId, resend: 1 });
		await expectOne(
			'webhook.deliveries_recovered',
			() => admin.post(`${webhookPath}/recover`, { since: '2026-01-01T00:00:00Z' }),
			202,
		);
		let rotatedSecret = '';
		const secretRotated = await expectOne(
			'webhook.secret_rotated',
			async () => {
				const response = await admin.post(`${webhookPath}/rotate-secret`);
				rotatedSecret = response.body.secret;
				return response;
			},
			200,
		);
		expect(secretRotated.data).toEqual({
			webhook_id: webhookId,
			url: 'http://127.0.0.1:9/events',
			previous_secret_expires_at: expect.any(String),
		});
		expect(JSON.stringify(secretRotated)).not.toContain(secret);
		expect(JSON.stringify(secretRotated)).not.toContain(rotatedSecret);
		await expectOne('webhook.deleted', () => admin.delete(webhookPath), 204);

		expect((await newestEvents(1))[0].actor).toBe('admin@' + org.slug + '.test');

		// The server disables an endpoint that answers 410 Gone, as `system`.
		receiver.reply = () => ({ status: 410 });
		await admin.post(`/orgs/${org.id}/webhooks`, {
			url: `${receiver.url}/gone`,
			event_types: ['lab.created'],
		});
		await admin.post('/labs', { name: 'Sent to a gone endpoint', tier: 'vm' });
		const disabled = await eventually(
			async () => (await newestEvents(1)).find((e) => e.type === 'webhook.disabled'),
			'webhook.disabled',
		);
		expect(disabled.actor).toBe('system');
		expectFitsItsSchema(disabled);
		seen.add('webhook.disabled');
		realData.set('webhook.disabled', disabled.data);

		// A delivery whose every attempt fails gives up, as `system`: on a server whose schedule is
		// one short delay, so that giving up takes two attempts.
		const quick = await serverWithOrg({
			WEBHOOK_ALLOW_INSECURE_URLS: 'true',
			WEBHOOK_RETRY_SCHEDULE_S: '0.05',
		});
		try {
			receiver.reply = () => ({ status: 500, body: 'down' });
			const failing = `${receiver.url}/failing`;
			const hook = await quick.org.admin.post(`/orgs/${quick.org.id}/webhooks`, {
				url: failing,
				event_types: ['lab.created'],
			});
			await quick.org.admin.post('/labs', { name: 'Never delivered', tier: 'vm' });
			const exhausted = await eventually(
				async () =>
					(await quick.org.admin.get(`/orgs/${quick.org.id}/events?limit=1`)).body.find(
						(e: { type: string }) => e.type === 'webhook.delivery_exhausted',
					),
				'webhook.delivery_exhausted',
			);
			expect(exhausted.actor).toBe('system');
			expect(exhausted.data).toMatchObject({
				webhook_id: hook.body.id,
				url: failing,
				event_type: 'lab.created',
				attempts: 2,
				last_status_code: 500,
				last_error: 'HTTP 500: down',
			});
			expectFitsItsSchema(exhausted);
			seen.add('webhook.delivery_exhausted');
			realData.set('webhook.delivery_exhausted', exhausted.data);

			// The endpoint's health, as `system`: five failed attempts in a row make it failing (once),
			// the next delivered one recovered.
			const quickAdmin = quick.org.admin;
			const systemEventsOf = async (type: string, webhookId: string) =>
				(
					(await quickAdmin.get(`/orgs/${quick.org.id}/events?limit=100&types=${type}`))
						.body as Array<{ type: string; actor: string; data: any }>
				).filter((e) => e.data.webhook_id === webhookId);
			const systemEvent = (type: string, webhookId: string) =>
				eventually(async () => {
					const found = await systemEventsOf(type, webhookId);
					return found.length > 0 && found;
				}, type);
			let flakyDown = true;
			receiver.reply = (d) =>
				d.path === '/flaky' && flakyDown ? { status: 500, body: 'down' } : { status: 204 };
			const flaky = (
				await quickAdmin.post(`/orgs/${quick.org.id}/webhooks`, {
					url: `${receiver.url}/flaky`,
					event_types: ['member.added'],
				})
			).body;
			// Three deliveries of two attempts each: the fifth failed attempt makes it failing.
			for (let i = 0; i < 3; i++)
				await quickAdmin.post(`/orgs/${quick.org.id}/members`, {
					email: `flaky-${i}@x.test`,
					name: 'Flaky',
					role: 'trainer',
				});
			const [failingEvent] = await systemEvent('webhook.failing', flaky.id);
			// Every attempt made: each of the three deliveries given up after its retry.
			await eventually(
				async () => (await systemEventsOf('webhook.delivery_exhausted', flaky.id)).length === 3,
				'the three deliveries to give up',
			);
			expect(await systemEventsOf('webhook.failing', flaky.id)).toHaveLength(1); // once an incident
			expect(failingEvent.actor).toBe('system');
			expect(failingEvent.data).toEqual({
				webhook_id: flaky.id,
				url: `${receiver.url}/flaky`,
				consecutive_failures: 5,
				last_status_code: 500,
				last_error: 'HTTP 500: down',
			});
			expectFitsItsSchema(failingEvent);
			seen.add('webhook.failing');
			realData.set('webhook.failing', failingEvent.data);
			flakyDown = false;
			await quickAdmin.post(`/orgs/${quick.org.id}/members`, {
				email: 'flaky-back@x.test',
				name: 'Back',
				role: 'trainer',
			});
			const [recovered] = await systemEvent('webhook.recovered', flaky.id);
			expect(recovered.data).toEqual({
				webhook_id: flaky.id,
				url: `${receiver.url}/flaky`,
				failing_since: expect.any(String),
				failed_attempts: 6,
			});
			expectFitsItsSchema(recovered);
			seen.add('webhook.recovered');
			realData.set('webhook.recovered', recovered.data);
		} finally {
			await quick.server.stop();
		}

		// n8n's 404 "not registered" holds the endpoint, as `system`: on a server whose clock has
		// passed the minute after the endpoint's creation, when n8n may still be registering it.
		const clock = new ManualClock(Date.now());
		const restored = await serverWithOrg({ WEBHOOK_ALLOW_INSECURE_URLS: 'true' }, undefined, {
			clock,
		});
		try {
			const notRegistered = JSON.stringify({
				code: 404,
				message: 'The requested webhook "POST 5d0c/webhook" is not registered.',
			});
			receiver.reply = (d) =>
				d.path === '/not-registered' ? { status: 404, body: notRegistered } : { status: 204 };
			const { admin: restoredAdmin, id: restoredOrg } = restored.org;
			const hook = (
				await restoredAdmin.post(`/orgs/${restoredOrg}/webhooks`, {
					url: `${receiver.url}/not-registered`,
					event_types: ['lab.created'],
				})
			).body;
			clock.advance(NOT_REGISTERED_GRACE_MS);
			await restoredAdmin.post('/labs', { name: 'Sent to a restored n8n', tier: 'vm' });
			const held = await eventually(
				async () =>
					(await restoredAdmin.get(`/orgs/${restoredOrg}/events?limit=1&types=webhook.held`))
						.body[0],
				'webhook.held',
			);
			expect(held.actor).toBe('system');
			expect(held.data).toEqual({
				webhook_id: hook.id,
				url: `${receiver.url}/not-registered`,
				reason: NOT_REGISTERED_REASON,
				last_status_code: 404,
				last_error: `HTTP 404: ${notRegistered}`,
			});
			expectFitsItsSchema(held);
			seen.add('webhook.held');
			realData.set('webhook.held', held.data);
		} finally {
			await restored.server.stop();
		}

		// Closing ends an organization's access, so its org.closed event is read from the database.
		const closing = await createOrg(server);
		expect((await closing.admin.post(`/orgs/${closing.id}/close`)).status).toBe(200);
		const closed = server.db
			.prepare("SELECT data FROM events WHERE org_id = ? AND type = 'org.closed'")
			.all(closing.id) as Array<{ data: string }>;
		expect(closed).toHaveLength(1);
		expect(
			EVENT_CATALOGUE['org.closed'].data.strict().safeParse(JSON.parse(closed[0].data)).success,
		).toBe(true);
		seen.add('org.closed');
		realData.set('org.closed', JSON.parse(closed[0].data));

		expect([...seen].sort()).toEqual([...EVENT_TYPES].sort());
	});

	it('sends a test event of every type with every field a real event of that type has, and sample values only', async () => {
		expect([...realData.keys()].sort()).toEqual([...EVENT_TYPES].sort()); // recorded by the test above
		receiver.reply = () => ({ status: 204 });
		const hook = (
			await org.admin.post(`/orgs/${org.id}/webhooks`, {
				url: `${receiver.url}/samples`,
				event_types: EVENT_TYPES,
			})
		).body;
		const before = (await newestEvents(1))[0];
		for (const event_type of EVENT_TYPES) {
			const response = await org.admin.post(`/orgs/${org.id}/webhooks/${hook.id}/test`, {
				event_type,
			});
			expect(response.status).toBe(202);
		}
		// Each test is recorded as sent; the samples themselves are not in the activity log.
		const recent = await newestEvents(100);
		const added = recent.slice(
			0,
			recent.findIndex((e) => e.id === before.id),
		);
		expect(added.map((event) => event.type)).toEqual(EVENT_TYPES.map(() => 'webhook.test_sent'));

		// The hook also gets each real webhook.test_sent event: wait for the samples themselves.
		const verifier = new Webhook(hook.secret);
		const testSamples = () =>
			receiver
				.at('/samples')
				.map((d) => verifier.verify(d.body, d.headers as Record<string, string>) as any)
				.filter((body) => body.test === true);
		await receiver.waitFor(() => testSamples().length >= EVENT_TYPES.length);
		const samples = testSamples();
		expect(samples.map((body) => body.type).sort()).toEqual([...EVENT_TYPES].sort());
		for (const delivery of receiver.at('/samples')) {
			const body = JSON.parse(delivery.body);
			expect({
				type: body.type,
				problems: contract.validateDelivery(delivery.headers, body),
			}).toEqual({ type: body.type, problems: [] });
		}
		const realIds = JSON.stringify([org.id, org.adminUserId, org.trainerUserId, org.labId]);
		for (const sample of samples) {
			const real = realData.get(sample.type)!;
			expect({ type: sample.type, fields: Object.keys(sample.data).sort() }).toEqual({
				type: sample.type,
				fields: Object.keys(real).sort(),
			});
			for (const [field, value] of Object.entries(sample.data)) {
				if (typeof value !== 'string') continue;
				if (field.endsWith('_id')) expect(value).toMatch(/^00000000-0000-4000-8000-\d{12}$/);
				if (value.includes('@')) expect(value).toMatch(/@example\.com$/);
				expect(realIds).not.toContain(value);
			}
		}
	});

	it("delivers real events as the OpenAPI document's webhooks describe them", async () => {
		receiver.reply = () => ({ status: 204 });
		const hook = (
			await org.admin.post(`/orgs/${org.id}/webhooks`, {
				url: `${receiver.url}/contract`,
				event_types: EVENT_TYPES,
			})
		).body;
		await org.admin.post('/labs', { name: 'Contract', tier: 'cluster' });
		await org.trainer.post('/sessions', sessionInput(org));
		await org.admin.patch(`/orgs/${org.id}/webhooks/${hook.id}`, { description: 'contract' });
		const typesOf = () => receiver.at('/contract').map((d) => JSON.parse(d.body).type);
		const expected = ['webhook.created', 'lab.created', 'session.created', 'webhook.updated'];
		await receiver.waitFor(() => expected.every((type) => typesOf().includes(type)));
		const deliveries = receiver.at('/contract');
		for (const delivery of deliveries) {
			const body = JSON.parse(delivery.body);
			expect(body.test).toBeUndefined();
			expect({
				type: body.type,
				problems: contract.validateDelivery(delivery.headers, body),
			}).toEqual({ type: body.type, problems: [] });
		}
		// The contract is exact: a field the schema does not name is a problem.
		const body = JSON.parse(deliveries[0].body);
		expect(
			contract.validateDelivery(deliveries[0].headers, {
				...body,
				data: { ...body.data, extra: 1 },
			}),
		).not.toEqual([]);
		await org.admin.delete(`/orgs/${org.id}/webhooks/${hook.id}`);
	});

	it('lists every event type with its description, cause, data schema and an example that fits it', async () => {
		const response = await org.trainer.get('/event-types');
		expect(response.status).toBe(200);
		const listed = response.body as Array<any>;
		expect(listed.map((info) => info.type)).toEqual([...EVENT_TYPES]);
		for (const info of listed) {
			const type = info.type as EventType;
			expect(info).toMatchObject({
				title: EVENT_CATALOGUE[type].title,
				description: EVENT_CATALOGUE[type].description,
				caused_by: EVENT_CATALOGUE[type].causedBy,
			});
			expect(Object.keys(info.data_schema.properties).sort()).toEqual(
				Object.keys(EVENT_CATALOGUE[type].data.shape).sort(),
			);
			for (const field of Object.values(info.data_schema.properties) as any[])
				expect(field.description ?? field.anyOf?.[0]?.description).toEqual(expect.any(String));
			expectFitsItsSchema(info.example);
			expect(contract.validate('#/components/schemas/EventTypeInfo', info)).toEqual([]);
		}
		expect((await new ApiClient(server.url).get('/event-types')).status).toBe(401);
	});

	it('records nothing for a refused change', async () => {
		const events = await eventsOf(
			() =>
				org.trainer.post('/sessions', sessionInput(org, { lab_version_id: org.draftVersionId })),
			409,
		);
		expect(events).toEqual([]);
	});

	it('returns the Activity event shape, newest first', async () => {
		const events = (await org.admin.get(`/orgs/${org.id}/events`)).body;
		expect(Object.keys(events[0]).sort()).toEqual(['actor', 'data', 'id', 'occurred_at', 'type']);
		const times = events.map((e: { occurred_at: string }) => e.occurred_at);
		expect([...times].sort().reverse()).toEqual(times);
	});

	it('defaults to 50 events and accepts limit 1–200 only', async () => {
		for (let i = 0; i < 30; i++) await org.trainer.post('/sessions', sessionInput(org));
		expect((await org.admin.get(`/orgs/${org.id}/events`)).body).toHaveLength(50);
		expect((await org.admin.get(`/orgs/${org.id}/events?limit=200`)).status).toBe(200);
		for (const limit of ['0', '201', '-1', 'ten', '1.5', '']) {
			const response = await org.admin.get(`/orgs/${org.id}/events?limit=${limit}`);
			expect(response.status).toBe(400);
			expect(response.body.error.details[0].path).toBe('limit');
		}
	});
});
