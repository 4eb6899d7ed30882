import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { Actor } from '../../server/src/core/actor.ts';
import { openDatabase } from '../../server/src/db/connection.ts';
import type { Outbox } from '../../server/src/outbox/outbox.ts';
import type { DueDelivery, SendOutcome } from '../../server/src/outbox/types.ts';
import { answered, outboxOn, room } from '../support/outbox.ts';
import { createServices, type Services } from '../../server/src/services/index.ts';

// An attempt is in flight while a person or the server changes its delivery: each interleaving,
// driven step by step through the services the dispatcher and the routes call, on a real database.
// An attempt answered 2xx has delivered the event, whatever happened meanwhile.
let dir: string;
let db: Database;
let services: Services;
let outbox: Outbox;
let actor: Actor;
let webhookId: string;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'traininglab-interleavings-'));
	db = openDatabase(join(dir, 'db.sqlite'));
	services = createServices(db, {
		allowInsecureWebhookUrls: true,
	});
	outbox = outboxOn(db, { retryScheduleSeconds: [5] });
	({ actor } = services.orgs.create({
		name: 'Interleavings',
		admin: { email: 'ada@interleavings.test', name: 'Ada' },
	}));
	webhookId = services.webhookEndpoints.create(actor, {
		url: 'http://127.0.0.1:9/interleavings',
		event_types: ['lab.created'],
	}).id;
});
afterEach(() => {
	db.close();
	rmSync(dir, { recursive: true, force: true });
});

/** `count` events, and their deliveries now in flight (claimed, as the dispatcher claims them). */
function inFlight(count: number): DueDelivery[] {
	for (let n = 0; n < count; n++) services.labs.create(actor, { name: `Lab ${n}`, tier: 'vm' });
	return outbox.claimDue(room(100), 60_000);
}

/** Records the answers as the dispatcher does, in one pass; returns those that could not be. */
function record(...answers: Array<[DueDelivery, SendOutcome]>) {
	const now = Date.now();
	return outbox.record(
		answers.map(([delivery, outcome]) => ({ delivery, outcome, startedAt: now, endedAt: now + 5 })),
	);
}

const deliveries = () =>
	services.deliveryOperations.listDeliveries(actor.orgId, webhookId, { limit: 100 }).items;
const recoverAll = () =>
	services.deliveryOperations.recover(actor, webhookId, '2000-01-01T00:00:00.000Z').queued;

describe('an attempt answered 2xx counts as delivered whatever happened while it was in flight', () => {
	it('the endpoint disabled meanwhile: succeeded, and a recovery after enabling it sends nothing', () => {
		const [delivery] = inFlight(1);
		services.webhookEndpoints.update(actor, webhookId, { disabled: true });
		expect(record([delivery, answered(200)])).toEqual([]);
		expect(deliveries()).toEqual([
			expect.objectContaining({
				status: 'succeeded',
				last_status_code: 200,
				next_attempt_at: null,
			}),
		]);
		services.webhookEndpoints.update(actor, webhookId, { disabled: false });
		expect(recoverAll()).toBe(0);
	});

	it('a recovery meanwhile: succeeded, not sent again by that recovery nor by the next', () => {
		const [delivery] = inFlight(1);
		record([delivery, answered(500)]);
		expect(deliveries()[0].status).toBe('failed');
		db.prepare('UPDATE webhook_deliveries SET next_attempt_at = 0').run(); // its retry is due
		const [retry] = outbox.claimDue(room(1), 60_000);
		expect(recoverAll()).toBe(1);
		record([retry, answered(204)]);
		expect(deliveries()).toEqual([
			expect.objectContaining({ status: 'succeeded', attempts: 2, last_status_code: 204 }),
		]);
		expect(outbox.claimDue(room(1), 60_000)).toEqual([]);
		expect(recoverAll()).toBe(0);
	});

	it('a resend asked for meanwhile: that attempt is logged as delivered, and the resend a person asked for still goes, once', () => {
		const [delivery] = inFlight(1);
		services.deliveryOperations.resend(actor, webhookId, delivery.id);
		record([delivery, answered(200)]);
		expect(deliveries()[0]).toMatchObject({ status: 'pending', resends: 1, attempts: 1 });
		const [resend] = outbox.claimDue(room(1), 60_000);
		expect(resend.resends).toBe(1);
		record([resend, answered(200)]);
		expect(deliveries()[0]).toMatchObject({ status: 'succeeded', attempts: 2 });
		expect(deliveries()[0].attempt_log.map((a) => a.status_code)).toEqual([200, 200]);
		expect(recoverAll()).toBe(0);
	});

	it("another delivery's 410 Gone in the same pass: the endpoint is disabled, and the 2xx is still delivered", () => {
		const [gone, delivered, unanswered] = inFlight(3);
		record([gone, answered(410)], [delivered, answered(200)]);
		const byId = new Map(deliveries().map((d) => [d.id, d]));
		expect(byId.get(gone.id)).toMatchObject({ status: 'exhausted', last_status_code: 410 });
		expect(byId.get(delivered.id)).toMatchObject({ status: 'succeeded', last_status_code: 200 });
		// Given up with the endpoint while still in flight; its later 2xx is delivered too.
		expect(byId.get(unanswered.id)?.status).toBe('exhausted');
		record([unanswered, answered(202)]);
		expect(deliveries().find((d) => d.id === unanswered.id)?.status).toBe('succeeded');
		services.webhookEndpoints.update(actor, webhookId, { disabled: false });
		expect(recoverAll()).toBe(1); // the one that answered 410
	});

	it('a failed answer after the endpoint was disabled leaves the delivery given up (recoverable)', () => {
		const [delivery] = inFlight(1);
		services.webhookEndpoints.update(actor, webhookId, { disabled: true });
		record([delivery, answered(503)]);
		expect(deliveries()[0]).toMatchObject({
			status: 'exhausted',
			last_status_code: 503,
			next_attempt_at: null,
		});
	});

	it('the endpoint deleted meanwhile: the answers end without an error, and the others of the pass are recorded', () => {
		const other = services.webhookEndpoints.create(actor, {
			url: 'http://127.0.0.1:9/other',
			event_types: ['lab.created'],
		});
		const claimed = inFlight(1);
		const [toDeleted, toOther] = [
			claimed.find((d) => d.webhook_id === webhookId)!,
			claimed.find((d) => d.webhook_id === other.id)!,
		];
		services.webhookEndpoints.delete(actor, webhookId);
		expect(record([toDeleted, answered(410)], [toOther, answered(200)])).toEqual([]);
		expect(
			services.deliveryOperations.listDeliveries(actor.orgId, other.id, { limit: 10 }).items,
		).toEqual([expect.objectContaining({ status: 'succeeded' })]);
		expect(db.prepare('SELECT count(*) FROM webhook_delivery_attempts').pluck().get()).toBe(1);
	});
});
