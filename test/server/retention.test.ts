import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { loadConfig } from '../../server/src/config.ts';
import type { Actor } from '../../server/src/core/actor.ts';
import { openDatabase } from '../../server/src/db/connection.ts';
import { createServices, type Services } from '../../server/src/services/index.ts';
import type { Outbox } from '../../server/src/outbox/outbox.ts';
import { outcomeOf } from '../../server/src/outbox/sender.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { outboxOn, room } from '../support/outbox.ts';

// What the store keeps: events and finished deliveries only as long as configured, so that it does
// not grow without bound; nothing still being sent, and no event a kept delivery refers to.
const DAY = 24 * 60 * 60 * 1000;
let dir: string;
let db: Database;
let services: Services;
let outbox: Outbox;
let clock: ManualClock;
let actor: Actor;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'traininglab-retention-'));
	db = openDatabase(join(dir, 'db.sqlite'));
	clock = new ManualClock();
	services = createServices(db, {
		allowInsecureWebhookUrls: true,
		retention: { eventMs: 10 * DAY, deliveryMs: 3 * DAY },
		clock,
	});
	outbox = outboxOn(db, { retryScheduleSeconds: [60], clock });
	({ actor } = services.orgs.create({
		name: 'Retention',
		admin: { email: 'ada@retention.test', name: 'Ada' },
	}));
});
afterEach(() => {
	db.close();
	rmSync(dir, { recursive: true, force: true });
});

const count = (table: string) =>
	(db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
const labs = (n: number, prefix: string) => {
	for (let i = 0; i < n; i++) services.labs.create(actor, { name: `${prefix} ${i}`, tier: 'vm' });
};
/** Sends what is due, each attempt answered `status`. */
function attemptDue(status: number) {
	const due = outbox.claimDue(room(10_000), 60_000);
	const now = clock.now();
	const response = { headers: {}, body: 'x'.repeat(4096), bodyTruncated: true };
	outbox.record(
		due.map((delivery) => ({
			delivery,
			outcome: outcomeOf(status, response, false, now),
			startedAt: now,
			endedAt: now,
		})),
	);
}
/** Prunes in as many batches as it takes, counting them. */
async function prune() {
	let pauses = 0;
	const pruned = await services.retention.prune(async () => {
		pauses++;
		return true;
	});
	return { ...pruned, pauses };
}
const activityLog = () =>
	services.events.list(actor.orgId, { limit: 200 }).items.map((event) => event.data);

describe('retention', () => {
	it('deletes finished deliveries with their attempts after DELIVERY_RETENTION_DAYS, and events after EVENT_RETENTION_DAYS', async () => {
		const webhook = services.webhookEndpoints.create(actor, {
			url: 'http://127.0.0.1:9/kept',
			event_types: ['lab.created'],
		});
		labs(1200, 'Old'); // more than two batches of each
		attemptDue(204);
		clock.advance(2 * DAY);
		labs(3, 'Recent');
		attemptDue(204);
		expect(count('webhook_delivery_attempts')).toBe(1203);

		clock.advance(1.5 * DAY); // the old ones are 3.5 days old, the recent 1.5
		expect(await prune()).toMatchObject({ deliveries: 1200, events: 0 });
		expect(count('webhook_deliveries')).toBe(3);
		expect(count('webhook_delivery_attempts')).toBe(3);
		const kept = services.deliveryOperations.listDeliveries(actor.orgId, webhook.id, {
			limit: 10,
		}).items;
		expect(kept.map((delivery) => delivery.status)).toEqual([
			'succeeded',
			'succeeded',
			'succeeded',
		]);

		clock.advance(7 * DAY); // the old events are 10.5 days old
		const events = count('events');
		const pruned = await prune();
		// The organization's and the endpoint's creation events are as old: they go too.
		expect(pruned).toMatchObject({ deliveries: 3, events: events - 3 });
		expect(count('events')).toBe(3);
		expect(activityLog().map((data) => (data as { name: string }).name)).toEqual([
			'Recent 2',
			'Recent 1',
			'Recent 0',
		]);
		// Pruning again finds nothing more.
		expect(await prune()).toMatchObject({ deliveries: 0, events: 0 });
	});

	it('keeps a delivery still being sent, and its event, whatever their age', async () => {
		services.webhookEndpoints.create(actor, {
			url: 'http://127.0.0.1:9/down',
			event_types: ['lab.created'],
		});
		labs(1, 'Failing');
		attemptDue(503); // failed: retried in a minute
		clock.advance(20 * DAY);
		const pruned = await prune();
		expect(pruned.deliveries).toBe(0);
		expect(activityLog()).toEqual([expect.objectContaining({ name: 'Failing 0' })]);
		expect(count('webhook_deliveries')).toBe(1);
	});

	it('stops between batches when told to (the server closing)', async () => {
		labs(1200, 'Many');
		const events = count('events');
		clock.advance(11 * DAY);
		const pruned = await services.retention.prune(async () => false);
		expect(pruned.events).toBe(500);
		expect(count('events')).toBe(events - 500);
	});

	it('is configured in days, fractions allowed, a delivery kept no longer than its event', () => {
		expect(
			loadConfig({ DELIVERY_RETENTION_DAYS: '0.5', EVENT_RETENTION_DAYS: '1' }).retention,
		).toEqual({
			deliveryMs: DAY / 2,
			eventMs: DAY,
		});
		expect(() => loadConfig({ DELIVERY_RETENTION_DAYS: '30', EVENT_RETENTION_DAYS: '7' })).toThrow(
			/DELIVERY_RETENTION_DAYS: must not exceed EVENT_RETENTION_DAYS/,
		);
		expect(() => loadConfig({ EVENT_RETENTION_DAYS: '0' })).toThrow(/EVENT_RETENTION_DAYS/);
	});
});
