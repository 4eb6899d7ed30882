import type { INodeParameters } from 'n8n-workflow';
import { roleOptions, tierOptions } from '../../nodes/TrainingLab/shared/descriptions';
import { ROLES } from '../../server/src/schemas/common';
import { LAB_TIERS } from '../../server/src/schemas/labs';
import { createOrg, type TestOrg, serverWithOrg } from '../support/fixtures';
import { type TestServer } from '../support/test-server';
import { byId, fromList, json, nodeRunner } from '../support/node-runner';
import { runTrainingLab } from '../support/n8n';
import { Receiver } from '../support/receiver';
import { Webhook } from 'standardwebhooks';
import { eventually } from '../../tooling/eventually';

let server: TestServer;
let org: TestOrg;
beforeAll(async () => {
	({ server, org } = await serverWithOrg({ WEBHOOK_ALLOW_INSECURE_URLS: 'true' }, 'Node Org'));
});
afterAll(() => server.stop());
const run = nodeRunner(
	() => server,
	() => org,
);

describe('Training Lab node operations', () => {
	it("Identity → Get returns the key's user, organization and role", async () => {
		const result = await run({ resource: 'identity', operation: 'get' });
		expect(json(result)).toEqual([(await org.admin.get('/me')).body]);
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
	});

	it('Member → Add, Get Many, Update Role and Remove', async () => {
		const added = json(
			await run({
				resource: 'member',
				operation: 'add',
				email: 'Grace@Node.test',
				name: 'Grace',
				role: 'trainer',
			}),
		)[0];
		expect(added).toEqual({
			user_id: expect.any(String),
			email: 'grace@node.test',
			name: 'Grace',
			role: 'trainer',
		});

		const members = json(await run({ resource: 'member', operation: 'getAll', returnAll: true }));
		expect(members).toEqual((await org.admin.get(`/orgs/${org.id}/members`)).body);

		const promoted = json(
			await run({
				resource: 'member',
				operation: 'updateRole',
				member: fromList(added.user_id as string),
				role: 'admin',
			}),
		);
		expect(promoted).toEqual([{ ...added, role: 'admin' }]);

		const removed = json(
			await run({ resource: 'member', operation: 'remove', member: byId(added.user_id as string) }),
		);
		expect(removed).toEqual([{ removed: true, user_id: added.user_id }]);
		expect(
			(await org.admin.get(`/orgs/${org.id}/members`)).body.map(
				(m: { user_id: string }) => m.user_id,
			),
		).not.toContain(added.user_id);
	});

	it('Activity Event → Get Many returns the newest events, flattened when simplified', async () => {
		const events = json(
			await run({
				resource: 'activityEvent',
				operation: 'getAll',
				returnAll: false,
				limit: 3,
				simplify: false,
			}),
		);
		expect(events).toEqual((await org.admin.get(`/orgs/${org.id}/events?limit=3`)).body);
		const simple = json(
			await run({
				resource: 'activityEvent',
				operation: 'getAll',
				returnAll: false,
				limit: 1,
				simplify: true,
			}),
		)[0];
		const { data, ...rest } = events[0] as { data: object };
		expect(simple).toEqual({ ...data, ...rest });
	});

	it('Activity Event → Get Many lists only the event types and times asked for', async () => {
		const log = (await org.admin.get(`/orgs/${org.id}/events?limit=200`)).body as Array<{
			type: string;
			occurred_at: string;
		}>;
		const types = ['member.added', 'lab.created'];
		const since = log.at(-1)!.occurred_at;
		const until = log[0].occurred_at;
		const events = json(
			await run({
				resource: 'activityEvent',
				operation: 'getAll',
				returnAll: true,
				filters: { types, since, until },
				simplify: false,
			}),
		);
		const expected = log.filter(
			(event) =>
				types.includes(event.type) && event.occurred_at >= since && event.occurred_at < until,
		);
		expect(expected.length).toBeGreaterThan(0);
		expect(events).toEqual(expected);
	});

	it('Session → Create, Get, Get Many, Rotate Join Code, Start, End and Delete', async () => {
		const created = json(
			await run(
				{
					resource: 'session',
					operation: 'create',
					title: 'Pods 101',
					labVersion: fromList(org.publishedVersionId),
					capacity: 12,
					additionalFields: { startsAt: '2026-12-01T09:00:00' },
				},
				{ timezone: 'Europe/Berlin' },
			),
		)[0];
		expect(created).toMatchObject({
			title: 'Pods 101',
			state: 'scheduled',
			capacity: 12,
			starts_at: '2026-12-01T08:00:00.000Z',
			lab_version_id: org.publishedVersionId,
		});
		const session = byId(created.id as string);

		expect(json(await run({ resource: 'session', operation: 'get', session }))).toEqual([
			{ ...created, participants: 0 },
		]);
		const all = json(await run({ resource: 'session', operation: 'getAll', returnAll: true }));
		expect(all.map((s) => s.id)).toContain(created.id);

		const { join_code } = json(
			await run({ resource: 'session', operation: 'rotateJoinCode', session }),
		)[0];
		expect(join_code).toMatch(/^[A-Z2-9]{8}$/);
		const joined = json(
			await run({
				resource: 'participant',
				operation: 'join',
				joinCode: join_code,
				email: 'p@node.test',
				name: 'P',
			}),
		)[0];
		expect(joined).toEqual({
			session_id: created.id,
			participant: expect.objectContaining({ email: 'p@node.test', name: 'P' }),
		});

		expect(json(await run({ resource: 'session', operation: 'start', session }))[0]).toMatchObject({
			state: 'running',
			participants: 1,
		});
		expect(json(await run({ resource: 'session', operation: 'end', session }))[0]).toMatchObject({
			state: 'ended',
		});
		expect(json(await run({ resource: 'session', operation: 'delete', session }))).toEqual([
			{ deleted: true, id: created.id },
		]);
		expect((await org.admin.get(`/sessions/${created.id}`)).status).toBe(404);
	});

	it('Lab → Create and Get Many; Lab Version → Create, Get Many and Publish', async () => {
		const lab = json(
			await run({ resource: 'lab', operation: 'create', name: 'Networking', tier: 'vm' }),
		)[0];
		expect(lab).toEqual({
			id: expect.any(String),
			name: 'Networking',
			tier: 'vm',
			created_at: expect.any(String),
		});
		expect(
			json(await run({ resource: 'lab', operation: 'getAll', returnAll: true })).map((l) => l.name),
		).toContain('Networking');

		const draft = json(
			await run({ resource: 'labVersion', operation: 'create', lab: fromList(lab.id as string) }),
		)[0];
		expect(draft).toMatchObject({ lab_id: lab.id, version: 1, status: 'draft' });
		const published = json(
			await run({
				resource: 'labVersion',
				operation: 'publish',
				lab: byId(lab.id as string),
				labVersion: fromList(draft.id as string),
			}),
		)[0];
		expect(published).toMatchObject({
			id: draft.id,
			status: 'published',
			published_at: expect.any(String),
		});
		expect(
			json(
				await run({
					resource: 'labVersion',
					operation: 'getAll',
					lab: byId(lab.id as string),
					returnAll: true,
				}),
			),
		).toEqual([published]);
	});

	it('API Key → Create (the key shown once), Get Many and Revoke', async () => {
		const created = json(
			await run({ resource: 'apiKey', operation: 'create', name: 'From n8n', role: 'trainer' }),
		)[0];
		expect(created.key).toMatch(/^tlk_/);
		const listed = json(await run({ resource: 'apiKey', operation: 'getAll', returnAll: true }));
		expect(listed.find((k) => k.id === created.id)).toEqual({ ...created, key: undefined });
		expect(JSON.stringify(listed)).not.toContain(created.key);

		expect(json(await run({ resource: 'apiKey', operation: 'revoke', keyId: created.id }))).toEqual(
			[{ revoked: true, id: created.id }],
		);
		expect((await org.admin.as(created.key as string).get('/me')).status).toBe(401);
	});

	it("Webhook → Get Delivery shows each attempt's cause and the receiver's answer; Get Health counts it", async () => {
		const receiver = await Receiver.start();
		try {
			const page = `<html><title>Bad gateway</title>${'x'.repeat(5000)}</html>`;
			receiver.reply = () => ({
				status: 502,
				body: page,
				headers: { 'content-type': 'text/html', 'set-cookie': 'session=private' },
			});
			const hook = await org.admin.post(`/orgs/${org.id}/webhooks`, {
				url: `${receiver.url}/broken`,
				event_types: ['lab.created'],
			});
			const sent = await org.admin.post(`/orgs/${org.id}/webhooks/${hook.body.id}/test`, {
				event_type: 'lab.created',
			});
			await receiver.waitFor(() => receiver.at('/broken').length === 1);
			const detail = async () =>
				json(
					await run({
						resource: 'webhook',
						operation: 'getDelivery',
						webhookId: hook.body.id,
						deliveryId: sent.body.id,
					}),
				)[0];
			const delivery = await eventually(
				async () => ((await detail()).attempt_log as unknown[]).length === 1 && detail(),
				'the attempt recorded',
			);
			expect(delivery).toMatchObject({ id: sent.body.id, status: 'failed', test: true });
			const [attempt] = delivery.attempt_log as Array<Record<string, any>>;
			expect(attempt).toMatchObject({ attempt: 1, cause: 'test', status_code: 502 });
			expect(attempt.response.headers['content-type']).toBe('text/html');
			expect(attempt.response.headers).not.toHaveProperty('set-cookie');
			expect(attempt.response.body).toBe(page.slice(0, 4096));
			expect(attempt.response.body_truncated).toBe(true);
			// Get Health: that one failed attempt, and its delivery waiting for the retry.
			const [health] = json(
				await run({ resource: 'webhook', operation: 'getHealth', webhookId: hook.body.id }),
			);
			expect(health).toMatchObject({
				waiting: 1,
				last_hour: { attempts: 1, delivered: 0, success_rate: 0, mean_answer_ms: null },
				last_day: { attempts: 1, delivered: 0 },
			});
			await org.admin.delete(`/orgs/${org.id}/webhooks/${hook.body.id}`);
		} finally {
			await receiver.stop();
		}
	});

	it('Webhook → Create, Get Many, Get Deliveries and Delete', async () => {
		const created = json(
			await run({
				resource: 'webhook',
				operation: 'create',
				url: 'http://127.0.0.1:9/n8n',
				eventTypes: ['member.removed', 'org.closed'],
				additionalFields: { description: 'Ops' },
			}),
		)[0];
		expect(created).toMatchObject({
			url: 'http://127.0.0.1:9/n8n',
			event_types: ['member.removed', 'org.closed'],
			description: 'Ops',
			secret: expect.stringMatching(/^whsec_/),
		});
		expect(json(await run({ resource: 'webhook', operation: 'getAll', returnAll: true }))).toEqual([
			{ ...created, secret: undefined },
		]);

		await org.admin.delete(`/orgs/${org.id}/members/${org.trainerUserId}`);
		const deliveries = json(
			await run({
				resource: 'webhook',
				operation: 'getDeliveries',
				webhookId: created.id,
				returnAll: true,
				simplify: false,
			}),
		);
		expect(deliveries).toEqual([
			expect.objectContaining({ event_type: 'member.removed', event_id: expect.any(String) }),
		]);
		const simple = json(
			await run({
				resource: 'webhook',
				operation: 'getDeliveries',
				webhookId: created.id,
				returnAll: true,
				simplify: true,
			}),
		);
		expect(Object.keys(simple[0]).sort()).toEqual([
			'attempts',
			'event_type',
			'id',
			'last_status_code',
			'status',
		]);

		await org.admin.post(`/orgs/${org.id}/webhooks/${created.id}/test`, {
			event_type: 'org.closed',
		});
		const filtered = async (filters: INodeParameters) =>
			json(
				await run({
					resource: 'webhook',
					operation: 'getDeliveries',
					webhookId: created.id,
					returnAll: true,
					filters,
					simplify: false,
				}),
			).map((delivery) => `${delivery.event_type}${delivery.test ? ' (test)' : ''}`);
		expect(await filtered({})).toEqual(['org.closed (test)', 'member.removed']);
		expect(await filtered({ test: 'only' })).toEqual(['org.closed (test)']);
		expect(await filtered({ test: 'exclude' })).toEqual(['member.removed']);
		expect(await filtered({ types: ['member.removed'], test: 'include' })).toEqual([
			'member.removed',
		]);
		expect(await filtered({ status: ['succeeded'] })).toEqual([]);
		expect(
			await filtered({ since: '2000-01-01T00:00:00Z', until: '2000-01-02T00:00:00Z' }),
		).toEqual([]);

		expect(
			json(await run({ resource: 'webhook', operation: 'get', webhookId: created.id })),
		).toEqual([{ ...created, secret: undefined }]);
		expect(
			json(await run({ resource: 'webhook', operation: 'delete', webhookId: created.id })),
		).toEqual([{ deleted: true, id: created.id }]);
		expect((await org.admin.get(`/orgs/${org.id}/webhooks`)).body).toEqual([]);
	});

	it('Webhook → Update, Send Test Event, Resend Delivery, Recover Deliveries and Rotate Secret', async () => {
		const receiver = await Receiver.start();
		try {
			const hook = (
				await org.admin.post(`/orgs/${org.id}/webhooks`, {
					url: 'http://127.0.0.1:9/unreachable',
					event_types: ['member.removed'],
				})
			).body;
			const updated = json(
				await run({
					resource: 'webhook',
					operation: 'update',
					webhookId: hook.id,
					updateFields: {
						url: `${receiver.url}/n8n`,
						eventTypes: ['member.removed', 'session.created'],
						description: 'Moved by n8n',
					},
				}),
			);
			expect(updated).toEqual([
				{
					id: hook.id,
					url: `${receiver.url}/n8n`,
					event_types: ['member.removed', 'session.created'],
					description: 'Moved by n8n',
					created_at: hook.created_at,
					disabled_at: null,
					held_since: null,
					held_reason: null,
					require_receipt: false,
					previous_secret_expires_at: null,
				},
			]);

			const [test] = json(
				await run({
					resource: 'webhook',
					operation: 'sendTest',
					webhookId: hook.id,
					eventType: 'session.created',
				}),
			);
			expect(test).toMatchObject({ event_type: 'session.created', test: true, status: 'pending' });
			await receiver.waitFor(() => receiver.at('/n8n').length === 1);
			expect(JSON.parse(receiver.at('/n8n')[0].body)).toMatchObject({
				id: test.event_id,
				test: true,
			});

			const [resent] = json(
				await run({
					resource: 'webhook',
					operation: 'resendDelivery',
					webhookId: hook.id,
					deliveryId: test.id,
				}),
			);
			expect(resent).toMatchObject({ id: test.id, resends: 1 });
			await receiver.waitFor(() => receiver.at('/n8n').length === 2);
			expect(JSON.parse(receiver.at('/n8n')[1].body)).toMatchObject({
				id: test.event_id,
				resend: 1,
			});

			const disabled = json(
				await run({
					resource: 'webhook',
					operation: 'update',
					webhookId: hook.id,
					updateFields: { enabled: false },
				}),
			)[0];
			expect(disabled.disabled_at).toEqual(expect.any(String));
			await org.admin.post('/sessions', {
				title: 'While disabled',
				lab_version_id: org.publishedVersionId,
				capacity: 3,
			});
			await run({
				resource: 'webhook',
				operation: 'update',
				webhookId: hook.id,
				updateFields: { enabled: true },
			});
			const recovered = json(
				await run(
					{
						resource: 'webhook',
						operation: 'recoverDeliveries',
						webhookId: hook.id,
						since: disabled.disabled_at,
					},
					{ timezone: 'Europe/Berlin' },
				),
			);
			expect(recovered).toEqual([{ queued: 1, since: disabled.disabled_at }]);
			await receiver.waitFor(() => receiver.at('/n8n').length === 3);
			expect(JSON.parse(receiver.at('/n8n')[2].body)).toMatchObject({
				type: 'session.created',
				data: { title: 'While disabled' },
			});

			const rotate = (parameters: INodeParameters) =>
				run({ resource: 'webhook', operation: 'rotateSecret', webhookId: hook.id, ...parameters });
			const [rotated] = json(await rotate({ oldSecret: 'day' }));
			expect(rotated).toMatchObject({ id: hook.id, secret: expect.stringMatching(/^whsec_/) });
			expect(Date.parse(rotated.previous_secret_expires_at as string) - Date.now()).toBeGreaterThan(
				23 * 60 * 60 * 1000,
			);
			const [leaked] = json(await rotate({ oldSecret: 'now' }));
			expect(leaked.previous_secret_expires_at).toBeNull();
			const inTwoHours = new Date(Date.now() + 2 * 60 * 60 * 1000).toISOString();
			const [until] = json(await rotate({ oldSecret: 'until', oldSecretExpiresAt: inTwoHours }));
			expect(until.previous_secret_expires_at).toBe(inTwoHours);
			await org.admin.post('/sessions', {
				title: 'After rotation',
				lab_version_id: org.publishedVersionId,
				capacity: 3,
			});
			await receiver.waitFor(() => receiver.at('/n8n').length === 4);
			const signed = receiver.at('/n8n')[3];
			// Signed with the newest secret and the one it replaced, each verified by the public library.
			for (const secret of [until.secret, leaked.secret] as string[])
				expect(new Webhook(secret).verify(signed.body, signed.headers as never)).toMatchObject({
					data: { title: 'After rotation' },
				});
		} finally {
			await receiver.stop();
		}
	});

	it("Webhook → Send Test Event of a type the endpoint does not subscribe to: the API's message, on the error output", async () => {
		const hook = (
			await org.admin.post(`/orgs/${org.id}/webhooks`, {
				url: 'http://127.0.0.1:9/refused',
				event_types: ['member.removed'],
			})
		).body;
		const result = await runTrainingLab(
			{
				resource: 'webhook',
				operation: 'sendTest',
				webhookId: hook.id,
				eventType: '={{ $json.type }}',
			},
			{
				credentials: { baseUrl: server.url, apiKey: org.admin.key! },
				input: [{ type: 'member.removed' }, { type: 'org.closed' }],
				settings: { onError: 'continueErrorOutput' },
			},
		);
		expect(result.items.map((item) => [item.json.event_type, item.pairedItem])).toEqual([
			['member.removed', { item: 0 }],
		]);
		expect(result.errorItems.map((item) => [item.json, item.pairedItem])).toEqual([
			[
				{
					error: {
						message:
							'The endpoint does not subscribe to org.closed; it subscribes to member.removed.',
						code: 'validation_failed',
						httpCode: '400',
						description: expect.stringMatching(/Error code: validation_failed/),
					},
				},
				{ item: 1 },
			],
		]);
	});

	it('Webhook → Update without a field to change fails naming the item', async () => {
		const result = await runTrainingLab(
			{ resource: 'webhook', operation: 'update', webhookId: 'any', updateFields: {} },
			{ credentials: { baseUrl: server.url, apiKey: org.admin.key! } },
		);
		expect(result.error).toMatchObject({
			name: 'NodeOperationError',
			message: 'Add at least one field to update',
			context: expect.objectContaining({ itemIndex: 0 }),
		});
	});

	it('Organization → Close closes the organization of the key', async () => {
		const doomed = await createOrg(server);
		const closed = json(
			await run({ resource: 'organization', operation: 'close' }, { key: doomed.admin.key! }),
		)[0];
		expect(closed).toEqual({
			id: doomed.id,
			name: expect.any(String),
			slug: doomed.slug,
			closed_at: expect.any(String),
		});
		expect((await doomed.admin.get('/me')).status).toBe(401);
	});
});

describe("the node's choices", () => {
	it("are the server's roles and lab tiers", () => {
		expect(roleOptions.map((option) => option.value).sort()).toEqual([...ROLES].sort());
		expect(tierOptions.map((option) => option.value).sort()).toEqual([...LAB_TIERS].sort());
	});
});
