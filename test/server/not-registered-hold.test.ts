import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { Actor } from '../../server/src/core/actor.ts';
import { openDatabase } from '../../server/src/db/connection.ts';
import {
	NOT_REGISTERED_GRACE_MS,
	NOT_REGISTERED_REASON,
	type Outbox,
} from '../../server/src/outbox/outbox.ts';
import { outcomeOf } from '../../server/src/outbox/sender.ts';
import type { SendOutcome } from '../../server/src/outbox/types.ts';
import { createServices, type Services } from '../../server/src/services/index.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { answered, outboxOn, room } from '../support/outbox.ts';

// n8n answers 404 "The requested webhook … is not registered" for a workflow it does not have
// active though its trigger never said so (deleted while n8n was down, its database restored):
// the endpoint is held rather than spending its deliveries' retries, and released as usual by the
// trigger's next activation. Driven through the services and the outbox, on a real database.
let dir: string;
let db: Database;
let clock: ManualClock;
let services: Services;
let outbox: Outbox;
let actor: Actor;
let webhookId: string;
let labs = 0;

/** What n8n 2.41 answers for a production webhook path it has no active workflow for. */
const notRegistered = (): SendOutcome =>
	outcomeOf(
		404,
		{
			headers: { 'content-type': 'application/json; charset=utf-8' },
			body: JSON.stringify({
				code: 404,
				message: 'The requested webhook "POST 7c1de2a0/webhook" is not registered.',
				hint: 'The workflow must be active for a production URL to run successfully.',
			}),
			bodyTruncated: false,
		},
		false,
		clock.now(),
	);

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'traininglab-not-registered-'));
	db = openDatabase(join(dir, 'db.sqlite'));
	clock = new ManualClock();
	services = createServices(db, { allowInsecureWebhookUrls: true, clock });
	// One step: a failure that used it up would give the delivery up at the next one.
	outbox = outboxOn(db, { retryScheduleSeconds: [5], clock });
	({ actor } = services.orgs.create({
		name: 'Restored',
		admin: { email: 'ada@restored.test', name: 'Ada' },
	}));
	webhookId = services.webhookEndpoints.create(actor, {
		url: 'http://127.0.0.1:9/webhook/7c1de2a0/webhook',
		event_types: ['lab.created'],
	}).id;
});
afterEach(() => {
	db.close();
	rmSync(dir, { recursive: true, force: true });
});

/** `count` new events, and their deliveries claimed as the dispatcher claims the due ones. */
function due(count: number) {
	for (let n = 0; n < count; n++)
		services.labs.create(actor, { name: `Lab ${++labs}`, tier: 'vm' });
	return outbox.claimDue(room(100), 60_000);
}

/** Each due delivery sent and answered `outcome`, recorded as the dispatcher records them. */
function sendDue(outcome: () => SendOutcome, newEvents = 0) {
	const claimed = due(newEvents);
	const now = clock.now();
	outbox.record(
		claimed.map((delivery) => ({ delivery, outcome: outcome(), startedAt: now, endedAt: now })),
	);
	return claimed;
}

const endpoint = () => services.webhookEndpoints.get(actor.orgId, webhookId);
const deliveries = () =>
	services.deliveryOperations.listDeliveries(actor.orgId, webhookId, { limit: 100 }).items;
const heldEvents = () =>
	(
		db
			.prepare("SELECT actor, data FROM events WHERE type = 'webhook.held' ORDER BY seq")
			.all() as Array<{
			actor: string;
			data: string;
		}>
	).map((row) => ({ actor: row.actor, data: JSON.parse(row.data) }));
const release = () => services.webhookEndpoints.update(actor, webhookId, { held: false });

it("reads n8n's answer as not registered, and any other 404 as an ordinary failure", () => {
	expect(notRegistered().kind).toBe('not_registered');
	expect(answered(404).kind).toBe('failed');
	const otherServer = outcomeOf(
		404,
		{ headers: {}, body: '{"message":"Not Found"}', bodyTruncated: false },
		false,
		clock.now(),
	);
	expect(otherServer.kind).toBe('failed');
});

it('holds the endpoint at the first such answer, once, saying why; nothing is given up, and each delivery goes once on release', () => {
	clock.advance(NOT_REGISTERED_GRACE_MS);
	expect(sendDue(notRegistered, 3)).toHaveLength(3);
	expect(endpoint()).toEqual(
		expect.objectContaining({ held_since: expect.any(String), held_reason: NOT_REGISTERED_REASON }),
	);
	expect(heldEvents()).toEqual([
		{
			actor: 'system',
			data: {
				webhook_id: webhookId,
				url: 'http://127.0.0.1:9/webhook/7c1de2a0/webhook',
				reason: NOT_REGISTERED_REASON,
				last_status_code: 404,
				last_error: expect.stringContaining('is not registered'),
			},
		},
	]);
	// Held: nothing more is sent, whatever happens, and days pass without anything given up.
	expect(due(2)).toEqual([]);
	clock.advance(3 * 24 * 60 * 60 * 1000);
	expect(due(0)).toEqual([]);
	expect(
		deliveries()
			.map((d) => d.status)
			.sort(),
	).toEqual(['failed', 'failed', 'failed', 'pending', 'pending']);

	// The workflow is activated again: its trigger releases the endpoint; every delivery goes, once.
	expect(release().held_reason).toBeNull();
	const sent = sendDue(() => answered(200));
	expect(sent).toHaveLength(5);
	expect(deliveries().map((d) => d.status)).toEqual(Array(5).fill('succeeded'));
	expect(due(0)).toEqual([]);
	expect(heldEvents()).toHaveLength(1);
});

it("spends no retry: after the release a delivery still has its schedule's step", () => {
	clock.advance(NOT_REGISTERED_GRACE_MS);
	sendDue(notRegistered, 1);
	clock.advance(NOT_REGISTERED_GRACE_MS);
	release();
	sendDue(() => answered(500));
	// The first failure that counts takes the one step: retried in 5 s, not given up.
	expect(deliveries()).toEqual([
		expect.objectContaining({ status: 'failed', attempts: 2, last_status_code: 500 }),
	]);
	clock.advance(6_000);
	sendDue(() => answered(500));
	expect(deliveries()).toEqual([expect.objectContaining({ status: 'exhausted', attempts: 3 })]);
});

it('an attempt started moments after a release holds nothing (n8n may be registering the path): an ordinary failure', () => {
	clock.advance(NOT_REGISTERED_GRACE_MS);
	services.webhookEndpoints.update(actor, webhookId, { held: true });
	due(1);
	clock.advance(NOT_REGISTERED_GRACE_MS);
	release();
	clock.advance(NOT_REGISTERED_GRACE_MS / 2);
	sendDue(notRegistered);
	expect(endpoint().held_since).toBeNull();
	expect(heldEvents()).toEqual([]);
	expect(deliveries()).toEqual([
		expect.objectContaining({ status: 'failed', attempts: 1, last_status_code: 404 }),
	]);
	// Its step is used: the next failure gives it up.
	clock.advance(6_000);
	sendDue(() => answered(500));
	expect(deliveries()).toEqual([expect.objectContaining({ status: 'exhausted' })]);
});

it('nor one started moments after the endpoint was created', () => {
	sendDue(notRegistered, 1);
	expect(endpoint().held_since).toBeNull();
	expect(heldEvents()).toEqual([]);
});

it("a hold asked for through the API has no server's reason, and a release clears the server's", () => {
	clock.advance(NOT_REGISTERED_GRACE_MS);
	sendDue(notRegistered, 1);
	// The trigger's deactivation while held by the server changes nothing: the reason stays.
	services.webhookEndpoints.update(actor, webhookId, { held: true });
	expect(endpoint().held_reason).toBe(NOT_REGISTERED_REASON);
	release();
	services.webhookEndpoints.update(actor, webhookId, { held: true });
	expect(endpoint()).toEqual(
		expect.objectContaining({ held_since: expect.any(String), held_reason: null }),
	);
});
