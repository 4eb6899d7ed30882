import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { Actor } from '../../server/src/core/actor.ts';
import { isoAt } from '../../server/src/core/clock.ts';
import { openDatabase } from '../../server/src/db/connection.ts';
import { RECOVERY_BATCH, type Outbox } from '../../server/src/outbox/outbox.ts';
import { createServices, type Services } from '../../server/src/services/index.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { outboxOn } from '../support/outbox.ts';

// A recovery of any size is bounded work: the request says how many it will queue, and they are
// queued a batch per transaction, between which requests run; it goes on after a restart.
let dir: string;
let db: Database;
let services: Services;
let outbox: Outbox;
let clock: ManualClock;
let actor: Actor;
let recovered: string;
let other: string;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'traininglab-recovery-'));
	db = openDatabase(join(dir, 'db.sqlite'));
	clock = new ManualClock();
	services = servicesOn(db);
	outbox = outboxOn(db, { retryScheduleSeconds: [1], clock });
	({ actor } = services.orgs.create({
		name: 'Recovery',
		admin: { email: 'ada@recovery.test', name: 'Ada' },
	}));
	recovered = services.webhookEndpoints.create(actor, {
		url: 'http://127.0.0.1:9/recovered',
		event_types: ['lab.created'],
	}).id;
	other = services.webhookEndpoints.create(actor, {
		url: 'http://127.0.0.1:9/other',
		event_types: ['lab.created'],
	}).id;
});
afterEach(() => {
	db.close();
	rmSync(dir, { recursive: true, force: true });
});

function servicesOn(database: Database): Services {
	return createServices(database, {
		allowInsecureWebhookUrls: true,
		clock,
	});
}

/** `count` labs a second apart, every delivery of each given up. */
function givenUpLabs(count: number): string[] {
	const times: string[] = [];
	for (let n = 0; n < count; n++) {
		clock.advance(1000);
		times.push(isoAt(clock.now()));
		services.labs.create(actor, { name: `Lab ${n}`, tier: 'vm' });
	}
	db.prepare("UPDATE webhook_deliveries SET status = 'exhausted', next_attempt_at = NULL").run();
	return times;
}
const pendingOf = (webhookId: string) =>
	(
		db
			.prepare(
				"SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending'",
			)
			.get(webhookId) as { n: number }
	).n;

describe('a recovery', () => {
	it('counts them in the request and queues them a batch at a time', () => {
		const times = givenUpLabs(3 * RECOVERY_BATCH);
		const since = times[RECOVERY_BATCH / 2];
		const { queued } = services.deliveryOperations.recover(actor, recovered, since);
		expect(queued).toBe(3 * RECOVERY_BATCH - RECOVERY_BATCH / 2);
		expect(pendingOf(recovered)).toBe(0);
		let batches = 0;
		while (outbox.recoverNextBatch()) batches++;
		expect(batches).toBe(3);
		expect(pendingOf(recovered)).toBe(queued);
		expect(pendingOf(other)).toBe(0);
		expect(outbox.recoveryUnderWay()).toBe(false);
		// Exactly those since then: the oldest pending one is the event at `since`.
		const oldest = db
			.prepare(
				`SELECT e.occurred_at FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
         WHERE d.webhook_id = ? AND d.status = 'pending' ORDER BY d.seq LIMIT 1`,
			)
			.get(recovered) as { occurred_at: string };
		expect(oldest.occurred_at).toBe(since);
	});

	it('goes on after a restart, from where it was', () => {
		givenUpLabs(2 * RECOVERY_BATCH + 10);
		const { queued } = services.deliveryOperations.recover(
			actor,
			recovered,
			'2000-01-01T00:00:00Z',
		);
		expect(queued).toBe(2 * RECOVERY_BATCH + 10);
		const path = db.name;
		db.close();
		db = openDatabase(path);
		services = servicesOn(db);
		outbox = outboxOn(db, { retryScheduleSeconds: [1], clock });
		while (outbox.recoverNextBatch());
		expect(pendingOf(recovered)).toBe(queued);
	});

	it('ends when its endpoint is disabled; a second one widens the one under way', () => {
		const times = givenUpLabs(3 * RECOVERY_BATCH);
		services.deliveryOperations.recover(actor, recovered, times[2 * RECOVERY_BATCH]);
		services.deliveryOperations.recover(actor, recovered, times[0]);
		while (outbox.recoverNextBatch());
		expect(pendingOf(recovered)).toBe(3 * RECOVERY_BATCH);

		db.prepare("UPDATE webhook_deliveries SET status = 'exhausted', next_attempt_at = NULL").run();
		services.deliveryOperations.recover(actor, recovered, times[0]);
		services.webhookEndpoints.update(actor, recovered, { disabled: true });
		expect(outbox.recoverNextBatch()).toBe(false);
		expect(pendingOf(recovered)).toBe(0);
	});

	it('queues nothing, and answers 0, when nothing since then failed', () => {
		const times = givenUpLabs(10);
		clock.advance(1000);
		expect(services.deliveryOperations.recover(actor, recovered, isoAt(clock.now())).queued).toBe(
			0,
		);
		expect(outbox.recoveryUnderWay()).toBe(false);
		expect(services.deliveryOperations.recover(actor, recovered, times[9]).queued).toBe(1);
		expect(outbox.recoverNextBatch()).toBe(true);
		expect(pendingOf(recovered)).toBe(1);
		expect(outbox.recoveryUnderWay()).toBe(false);
	});
});
