import { EVENT_TYPES } from '../../server/src/schemas/events.ts';
import { sessionInput, type TestOrg, serverWithOrg } from '../support/fixtures.ts';
import { type TestServer } from '../support/test-server.ts';

let server: TestServer;
let org: TestOrg;
beforeAll(async () => {
	({ server, org } = await serverWithOrg({ WEBHOOK_ALLOW_INSECURE_URLS: 'true' }));
});
afterAll(() => server.stop());

async function newestEvents(count: number) {
	return (await org.admin.get(`/orgs/${org.id}/events?limit=${count}`)).body as Array<{
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
			seen.add(type);
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
		await expectOne(
			'webhook.deleted',
			() => admin.delete(`/orgs/${org.id}/webhooks/${webhookId}`),
			204,
		);

		expect((await newestEvents(1))[0].actor).toBe('admin@' + org.slug + '.test');
		// org.closed is covered in members.test.ts (closing ends this organisation's access), webhook.disabled
		// in webhook-delivery.test.ts (it needs an endpoint answering 410).
		expect([...seen, 'org.closed', 'webhook.disabled'].sort()).toEqual([...EVENT_TYPES].sort());
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
