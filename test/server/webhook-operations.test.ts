import { Webhook } from 'standardwebhooks';
import { createOrg, removeTrainers, sessionInput, type TestOrg } from '../support/fixtures.ts';
import { Receiver, type ReceivedDelivery } from '../support/receiver.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { eventually } from '../../tooling/eventually.ts';

// What a person does with an endpoint: a test event, a resend, a recovery, a change, disabling and
// enabling; each against the real server and a real receiver.
let server: TestServer;
let receiver: Receiver;
beforeAll(async () => {
	receiver = await Receiver.start();
	server = await startTestServer({
		WEBHOOK_ALLOW_INSECURE_URLS: 'true',
		WEBHOOK_RETRY_SCHEDULE_S: '0.2,0.2',
		WEBHOOK_TIMEOUT_MS: '2000',
		WEBHOOK_CONCURRENCY: '4',
		WEBHOOK_ENDPOINT_CONCURRENCY: '2',
		RATE_LIMIT_REQUESTS: '100000',
	});
});
afterAll(async () => {
	await server.stop();
	await receiver.stop();
});

let org: TestOrg;
beforeEach(async () => {
	org = await createOrg(server);
	receiver.reply = () => ({ status: 204 });
});

interface Endpoint {
	id: string;
	secret: string;
	path: string;
	url: string;
	base: string;
}

let pathCounter = 0;
async function subscribe(eventTypes: string[]): Promise<Endpoint> {
	const path = `/ops-${++pathCounter}`;
	const response = await org.admin.post(`/orgs/${org.id}/webhooks`, {
		url: `${receiver.url}${path}`,
		event_types: eventTypes,
	});
	expect(response.status).toBe(201);
	return { ...response.body, path, base: `/orgs/${org.id}/webhooks/${response.body.id}` };
}

const deliveriesOf = async (hook: Endpoint) =>
	(await org.admin.get(`${hook.base}/deliveries`)).body;
const verified = (hook: Endpoint, delivery: ReceivedDelivery) =>
	new Webhook(hook.secret).verify(delivery.body, delivery.headers as Record<string, string>) as any;
const eventTypesInLog = async () =>
	(await org.admin.get(`/orgs/${org.id}/events?limit=200`)).body.map((e: any) => e.type);

/** Everything of the organization a test event must leave as it was. */
async function organization() {
	const read = async (path: string) => (await org.admin.getAll(path)).items;
	return {
		members: await read(`/orgs/${org.id}/members`),
		sessions: await read('/sessions'),
		labs: await read('/labs'),
		keys: await read(`/orgs/${org.id}/api-keys`),
		webhooks: await read(`/orgs/${org.id}/webhooks`),
	};
}

async function waitForDeliveries(hook: Endpoint, done: (deliveries: any[]) => boolean) {
	return eventually(async () => {
		const deliveries = await deliveriesOf(hook);
		return done(deliveries) && deliveries;
	}, `the deliveries of ${hook.path}`);
}

describe('a test event', () => {
	it('is a signed sample of the type, marked as a test in its body and the deliveries list, sent to that endpoint only, and changes nothing', async () => {
		const hook = await subscribe(['member.removed', 'org.closed']);
		const bystander = await subscribe(['member.removed']);
		const before = await organization();

		const response = await org.admin.post(`${hook.base}/test`, { event_type: 'member.removed' });
		expect(response.status).toBe(202);
		expect(response.body).toMatchObject({
			event_type: 'member.removed',
			test: true,
			resends: 0,
			status: 'pending',
			attempts: 0,
			attempt_log: [],
		});
		await receiver.waitFor(() => receiver.at(hook.path).length === 1);
		const [delivery] = receiver.at(hook.path);
		const body = verified(hook, delivery);
		expect(delivery.headers['webhook-id']).toBe(response.body.event_id);
		expect(body).toEqual({
			id: response.body.event_id,
			type: 'member.removed',
			occurred_at: response.body.event_occurred_at,
			org_id: org.id,
			actor: `admin@${org.slug}.test`,
			data: {
				user_id: '00000000-0000-4000-8000-000000000001',
				email: 'grace.hopper@example.com',
				role: 'trainer',
			},
			test: true,
		});

		await server.webhooksIdle();
		expect(receiver.at(bystander.path)).toEqual([]);
		expect(await organization()).toEqual(before);
		const log = (await org.admin.get(`/orgs/${org.id}/events?limit=200`)).body;
		expect(log.map((event: { id: string }) => event.id)).not.toContain(body.id);
		expect(log[0]).toMatchObject({
			type: 'webhook.test_sent',
			actor: `admin@${org.slug}.test`,
			data: {
				webhook_id: hook.id,
				event_type: 'member.removed',
				event_id: body.id,
				delivery_id: response.body.id,
			},
		});
		expect(await deliveriesOf(hook)).toEqual([
			expect.objectContaining({ id: response.body.id, test: true, status: 'succeeded' }),
		]);
	});

	it.each([
		['a type the endpoint does not subscribe to', { event_type: 'org.closed' }, 'event_type'],
		['a type that does not exist', { event_type: 'member.exploded' }, 'event_type'],
		['no type', {}, 'event_type'],
	])('is refused for %s with 400, sending nothing', async (_name, body, path) => {
		const hook = await subscribe(['member.removed']);
		const types = await eventTypesInLog();
		const response = await org.admin.post(`${hook.base}/test`, body);
		expect(response.status).toBe(400);
		expect(response.body.error.code).toBe('validation_failed');
		expect(response.body.error.details[0].path).toBe(path);
		expect(await eventTypesInLog()).toEqual(types);
		expect(await deliveriesOf(hook)).toEqual([]);
	});

	it('says which types the endpoint subscribes to when refused', async () => {
		const hook = await subscribe(['member.removed', 'session.created']);
		const response = await org.admin.post(`${hook.base}/test`, { event_type: 'org.closed' });
		expect(response.body.error.message).toBe(
			'The endpoint does not subscribe to org.closed; it subscribes to member.removed, session.created.',
		);
	});
});

describe('a resend', () => {
	it('sends the same event again now, marked as the n-th resend, keeping every attempt in the log', async () => {
		const hook = await subscribe(['session.created']);
		await org.admin.post('/sessions', sessionInput(org));
		const [first] = await waitForDeliveries(hook, ([d]) => d?.status === 'succeeded');

		const response = await org.admin.post(`${hook.base}/deliveries/${first.id}/resend`);
		expect(response.status).toBe(202);
		expect(response.body).toMatchObject({ id: first.id, event_id: first.event_id, resends: 1 });
		expect(['pending', 'succeeded']).toContain(response.body.status);
		await receiver.waitFor(() => receiver.at(hook.path).length === 2);
		expect((await org.admin.post(`${hook.base}/deliveries/${first.id}/resend`)).status).toBe(202);
		await receiver.waitFor(() => receiver.at(hook.path).length === 3);

		const bodies = receiver.at(hook.path).map((delivery) => verified(hook, delivery));
		expect(receiver.at(hook.path).map((d) => d.headers['webhook-id'])).toEqual([
			first.event_id,
			first.event_id,
			first.event_id,
		]);
		expect(bodies.map((body) => body.resend)).toEqual([undefined, 1, 2]);
		const { resend: _resend, ...original } = bodies[1];
		expect(original).toEqual(bodies[0]);

		const [after] = await waitForDeliveries(hook, ([d]) => d.attempts === 3);
		expect(after).toMatchObject({ status: 'succeeded', resends: 2, attempts: 3 });
		expect(after.attempt_log.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3]);
		const log = (await org.admin.get(`/orgs/${org.id}/events?limit=2`)).body;
		expect(log[0]).toMatchObject({
			type: 'webhook.delivery_resent',
			actor: `admin@${org.slug}.test`,
			data: {
				webhook_id: hook.id,
				delivery_id: first.id,
				event_id: first.event_id,
				event_type: 'session.created',
				resend: 2,
			},
		});
	});

	it('gives a delivery that was given up a fresh retry schedule; its attempt numbers go on', async () => {
		const hook = await subscribe(['session.created']);
		receiver.reply = () => ({ status: 503 });
		await org.admin.post('/sessions', sessionInput(org));
		const [given] = await waitForDeliveries(hook, ([d]) => d?.status === 'exhausted');
		expect(given.attempts).toBe(3);

		await org.admin.post(`${hook.base}/deliveries/${given.id}/resend`);
		const [again] = await waitForDeliveries(
			hook,
			([d]) => d.status === 'exhausted' && d.attempts === 6,
		);
		expect(again.attempt_log.map((a: { attempt: number }) => a.attempt)).toEqual([
			1, 2, 3, 4, 5, 6,
		]);
		// The resend's own retries are automatic: they carry the same resend number.
		const resends = receiver.at(hook.path).map((delivery) => verified(hook, delivery).resend);
		expect(resends).toEqual([undefined, undefined, undefined, 1, 1, 1]);
	});

	it('made while an attempt is in flight is not undone by it: the event goes again after that answer, never two at once', async () => {
		const hook = await subscribe(['session.created']);
		let answered = 0;
		receiver.reply = () => ({ status: 200, delayMs: answered++ === 0 ? 500 : 0 });
		await org.admin.post('/sessions', sessionInput(org));
		await receiver.waitFor(() => receiver.at(hook.path).length === 1);
		const [inFlight] = await deliveriesOf(hook);
		expect(inFlight.attempts).toBe(0);

		await org.admin.post(`${hook.base}/deliveries/${inFlight.id}/resend`);
		const [after] = await waitForDeliveries(hook, ([d]) => d.attempts === 2);
		expect(after).toMatchObject({ status: 'succeeded', resends: 1 });
		const [firstTry, resent] = receiver.at(hook.path);
		expect(verified(hook, resent).resend).toBe(1);
		expect(resent.receivedAt).toBeGreaterThanOrEqual(firstTry.receivedAt + 500);
		expect(receiver.mostInFlight(hook.path)).toBe(1);
	});

	it('of an unknown delivery, or of another endpoint, is 404', async () => {
		const hook = await subscribe(['session.created']);
		const other = await subscribe(['session.created']);
		await org.admin.post('/sessions', sessionInput(org));
		const [theirs] = await waitForDeliveries(other, ([d]) => d?.status === 'succeeded');
		for (const path of [
			`${hook.base}/deliveries/${theirs.id}/resend`,
			`${hook.base}/deliveries/00000000-0000-4000-8000-000000000000/resend`,
		]) {
			const response = await org.admin.post(path);
			expect(response.status).toBe(404);
			expect(response.body.error.code).toBe('not_found');
		}
		expect((await deliveriesOf(other))[0].resends).toBe(0);
	});
});

describe('a recovery', () => {
	it('sends again every failed or given-up delivery since then, on a fresh schedule, and no other', async () => {
		const hook = await subscribe(['member.removed', 'session.created']);
		await org.admin.post('/sessions', sessionInput(org)); // delivered: not recovered
		await waitForDeliveries(hook, ([d]) => d?.status === 'succeeded');
		receiver.reply = () => ({ status: 500 });
		await removeTrainers(org, 1); // given up before `since`: not recovered
		await waitForDeliveries(hook, ([d]) => d.status === 'exhausted');
		const since = new Date().toISOString();
		const leavers = await removeTrainers(org, 3);
		const failed = await waitForDeliveries(
			hook,
			(all) => all.filter((d) => d.status === 'exhausted').length === 4,
		);
		const sentBefore = receiver.at(hook.path).length;

		receiver.reply = () => ({ status: 204 });
		const response = await org.admin.post(`${hook.base}/recover`, { since });
		expect(response.status).toBe(202);
		expect(response.body).toEqual({ queued: 3, since });
		const after = await waitForDeliveries(
			hook,
			(all) => all.filter((d) => d.status === 'succeeded').length === 4,
		);
		await server.webhooksIdle();
		const recovered = receiver.at(hook.path).slice(sentBefore);
		expect(recovered.map((d) => verified(hook, d).data.user_id).sort()).toEqual(leavers.sort());
		// A recovery is a retry, not a resend: the bodies are those the endpoint was sent before.
		expect(recovered.every((d) => verified(hook, d).resend === undefined)).toBe(true);
		// Each recovered delivery had its 3 attempts, then one more on its fresh schedule.
		const recoveredIds = new Set(failed.slice(0, 3).map((d: { id: string }) => d.id));
		const recoveredNow = after.filter((d: { id: string }) => recoveredIds.has(d.id));
		expect(recoveredNow).toEqual(
			[...recoveredIds].map(() =>
				expect.objectContaining({ status: 'succeeded', attempts: 4, resends: 0 }),
			),
		);
		expect(after.find((d: { status: string }) => d.status === 'exhausted')).toMatchObject({
			attempts: 3,
		});
		// (The endpoint's recovery from failing is recorded too: webhook.recovered, after this one.)
		const recoveries = `/orgs/${org.id}/events?limit=1&types=webhook.deliveries_recovered`;
		expect((await org.admin.get(recoveries)).body[0]).toMatchObject({
			type: 'webhook.deliveries_recovered',
			data: { webhook_id: hook.id, since, queued: 3 },
		});

		// Safe to repeat: nothing is left to recover.
		expect((await org.admin.post(`${hook.base}/recover`, { since })).body.queued).toBe(0);
		await server.webhooksIdle();
		expect(receiver.at(hook.path)).toHaveLength(sentBefore + 3);
	});

	it.each([
		['in the future', { since: '2999-01-01T00:00:00Z' }, 'since: Must not be in the future.'],
		['not a timestamp', { since: 'yesterday' }, undefined],
		['missing', {}, undefined],
	])('is refused for a `since` %s with 400, queuing nothing', async (_name, body, message) => {
		const hook = await subscribe(['member.removed']);
		receiver.reply = () => ({ status: 500 });
		await removeTrainers(org, 1);
		await waitForDeliveries(hook, ([d]) => d?.status === 'exhausted');
		const types = await eventTypesInLog();
		const response = await org.admin.post(`${hook.base}/recover`, body);
		expect(response.status).toBe(400);
		expect(response.body.error.details[0].path).toBe('since');
		if (message) expect(response.body.error.message).toBe(message);
		expect(await eventTypesInLog()).toEqual(types);
		expect((await deliveriesOf(hook))[0].status).toBe('exhausted');
	});

	it("of a large backlog goes at the endpoint's pace and holds up no other endpoint's deliveries", async () => {
		const slow = await subscribe(['member.removed']);
		const other = await subscribe(['session.created']);
		receiver.reply = () => ({ status: 500 });
		const since = new Date().toISOString();
		await removeTrainers(org, 30);
		await waitForDeliveries(
			slow,
			(all) => all.length === 30 && all.every((d) => d.status === 'exhausted'),
		);

		receiver.reply = (delivery) => ({
			status: 204,
			delayMs: delivery.path === slow.path ? 100 : 0,
		});
		const sentBefore = receiver.at(slow.path).length;
		expect((await org.admin.post(`${slow.base}/recover`, { since })).body.queued).toBe(30);
		await receiver.waitFor(() => receiver.at(slow.path).length > sentBefore);
		await org.admin.post('/sessions', sessionInput(org));
		await receiver.waitFor(() => receiver.at(other.path).length === 1);
		// The other endpoint's delivery went while most of the backlog was still waiting its turn.
		expect(receiver.at(slow.path).length - sentBefore).toBeLessThan(30);
		await waitForDeliveries(slow, (all) => all.every((d) => d.status === 'succeeded'));
		// WEBHOOK_ENDPOINT_CONCURRENCY=2: never more than two of the backlog at the endpoint at once.
		expect(receiver.mostInFlight(slow.path)).toBe(2);
	});
});

describe('changing an endpoint', () => {
	it('changes its URL, events and description, records each change once, and never returns its secret', async () => {
		const hook = await subscribe(['member.removed']);
		const url = `${receiver.url}/moved-${pathCounter}`;
		const response = await org.admin.patch(hook.base, {
			url,
			event_types: ['org.closed', 'member.removed', 'org.closed'],
			description: '  Offboarding  ',
		});
		expect(response.status).toBe(200);
		const changed = {
			id: hook.id,
			url,
			event_types: ['org.closed', 'member.removed'],
			description: 'Offboarding',
			created_at: expect.any(String),
			disabled_at: null,
			held_since: null,
			held_reason: null,
			require_receipt: false,
			previous_secret_expires_at: null,
		};
		expect(response.body).toEqual(changed);
		expect((await org.admin.get(hook.base)).body).toEqual(changed);
		expect((await org.admin.get(`/orgs/${org.id}/events?limit=1`)).body[0]).toMatchObject({
			type: 'webhook.updated',
			data: {
				webhook_id: hook.id,
				url,
				changes: {
					url: { from: hook.url, to: url },
					event_types: { from: ['member.removed'], to: ['org.closed', 'member.removed'] },
					description: { from: null, to: 'Offboarding' },
				},
			},
		});

		// The same again changes nothing and records nothing; a null description removes it.
		const types = await eventTypesInLog();
		expect((await org.admin.patch(hook.base, { url, description: 'Offboarding' })).body).toEqual(
			changed,
		);
		expect(await eventTypesInLog()).toEqual(types);
		const { description: _gone, ...withoutDescription } = changed;
		expect((await org.admin.patch(hook.base, { description: null })).body).toEqual(
			withoutDescription,
		);

		// Deliveries go to the new URL, for the new events.
		await org.admin.delete(`/orgs/${org.id}/members/${org.trainerUserId}`);
		await receiver.waitFor(() => receiver.at(new URL(url).pathname).length === 1);
		expect(receiver.at(hook.path)).toEqual([]);
	});

	it.each([
		['nothing to change', {}, ''],
		['no event types', { event_types: [] }, 'event_types'],
		['an unknown event type', { event_types: ['member.exploded'] }, 'event_types.0'],
		['a relative URL', { url: '/hook' }, 'url'],
		['a URL with credentials', { url: 'https://user:pass@example.com/hook' }, 'url'],
		['disabled as a string', { disabled: 'yes' }, 'disabled'],
	])('refuses %s with 400 and changes nothing', async (_name, body, path) => {
		const hook = await subscribe(['member.removed']);
		const before = (await org.admin.get(hook.base)).body;
		const types = await eventTypesInLog();
		const response = await org.admin.patch(hook.base, body);
		expect(response.status).toBe(400);
		expect(response.body.error.code).toBe('validation_failed');
		expect(response.body.error.details[0].path).toBe(path);
		expect((await org.admin.get(hook.base)).body).toEqual(before);
		expect(await eventTypesInLog()).toEqual(types);
	});

	it("refuses another endpoint's URL with 409 url_taken", async () => {
		const hook = await subscribe(['member.removed']);
		const other = await subscribe(['member.removed']);
		const response = await org.admin.patch(hook.base, { url: other.url });
		expect(response.status).toBe(409);
		expect(response.body.error.code).toBe('url_taken');
		expect((await org.admin.get(hook.base)).body.url).toBe(hook.url);
	});
});

describe('disabling and enabling an endpoint', () => {
	it('keeps what happens while it is disabled as given-up deliveries, sends nothing on enabling, and a recovery delivers them', async () => {
		const hook = await subscribe(['member.removed']);
		const disabled = await org.admin.patch(hook.base, { disabled: true });
		expect(disabled.status).toBe(200);
		expect(disabled.body.disabled_at).toEqual(expect.any(String));
		const leavers = await removeTrainers(org, 2);
		await server.webhooksIdle();
		expect(receiver.at(hook.path)).toEqual([]);
		expect(await deliveriesOf(hook)).toEqual([
			expect.objectContaining({
				status: 'exhausted',
				attempts: 0,
				last_error: 'Not sent: the endpoint was disabled.',
			}),
			expect.objectContaining({ status: 'exhausted', attempts: 0 }),
		]);
		for (const refused of [
			org.admin.post(`${hook.base}/test`, { event_type: 'member.removed' }),
			org.admin.post(`${hook.base}/recover`, { since: disabled.body.disabled_at }),
		]) {
			const response = await refused;
			expect(response.status).toBe(409);
			expect(response.body.error).toEqual({
				code: 'invalid_state',
				message:
					'This endpoint is disabled, so nothing is sent to it. Enable it first (PATCH with "disabled": false).',
			});
		}

		expect((await org.admin.patch(hook.base, { disabled: false })).body.disabled_at).toBeNull();
		await server.webhooksIdle();
		expect(receiver.at(hook.path)).toEqual([]);
		const recovered = await org.admin.post(`${hook.base}/recover`, {
			since: disabled.body.disabled_at,
		});
		expect(recovered.body.queued).toBe(2);
		await receiver.waitFor(() => receiver.at(hook.path).length === 2);
		expect(
			receiver
				.at(hook.path)
				.map((d) => verified(hook, d).data.user_id)
				.sort(),
		).toEqual(leavers.sort());
		const changes = (await org.admin.get(`/orgs/${org.id}/events?limit=20`)).body
			.filter((event: { type: string }) => event.type === 'webhook.updated')
			.map((event: any) => event.data.changes);
		expect(changes).toEqual([
			{ disabled: { from: true, to: false } },
			{ disabled: { from: false, to: true } },
		]);
	});

	it('gives up the deliveries still open when it is disabled, naming who disabled it', async () => {
		const hook = await subscribe(['member.removed']);
		receiver.reply = () => ({ status: 500 });
		await removeTrainers(org, 1);
		await waitForDeliveries(hook, ([d]) => d?.attempts === 1);
		await org.admin.patch(hook.base, { disabled: true });
		await server.webhooksIdle();
		const [delivery] = await deliveriesOf(hook);
		expect(delivery).toMatchObject({
			status: 'exhausted',
			next_attempt_at: null,
			last_error: `Endpoint disabled by admin@${org.slug}.test.`,
		});
	});

	it('disabled while an attempt is in flight: that attempt, failed, does not bring the delivery back', async () => {
		const hook = await subscribe(['member.removed']);
		receiver.reply = () => ({ status: 500, delayMs: 500 });
		await removeTrainers(org, 1);
		await receiver.waitFor(() => receiver.at(hook.path).length === 1);
		await org.admin.patch(hook.base, { disabled: true });
		const [delivery] = await waitForDeliveries(hook, ([d]) => d.attempts === 1);
		expect(delivery).toMatchObject({ status: 'exhausted', next_attempt_at: null });
		expect(delivery.attempt_log).toMatchObject([{ attempt: 1, status_code: 500 }]);
		// Enabled again, it is not retried by itself: only a recovery sends it.
		receiver.reply = () => ({ status: 204 });
		await org.admin.patch(hook.base, { disabled: false });
		await server.webhooksIdle();
		expect(receiver.at(hook.path)).toHaveLength(1);
	});

	it('enables an endpoint disabled after a 410 Gone, and a recovery sends what came meanwhile', async () => {
		const hook = await subscribe(['member.removed']);
		receiver.reply = () => ({ status: 410 });
		const [gone] = await removeTrainers(org, 1);
		await eventually(
			async () => (await org.admin.get(hook.base)).body.disabled_at !== null,
			'the endpoint to be disabled',
		);
		const since = (await org.admin.get(hook.base)).body.disabled_at;
		const [meanwhile] = await removeTrainers(org, 1);
		receiver.reply = () => ({ status: 204 });
		expect((await org.admin.patch(hook.base, { disabled: false })).body.disabled_at).toBeNull();
		const recovered = await org.admin.post(`${hook.base}/recover`, {
			since: new Date(Date.parse(since) - 60_000).toISOString(),
		});
		expect(recovered.body.queued).toBe(2);
		await receiver.waitFor(() => receiver.at(hook.path).length === 3);
		expect(
			receiver
				.at(hook.path)
				.slice(1)
				.map((d) => verified(hook, d).data.user_id)
				.sort(),
		).toEqual([gone, meanwhile].sort());
	});
});
