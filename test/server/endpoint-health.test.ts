import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { Actor } from '../../server/src/core/actor.ts';
import { openDatabase } from '../../server/src/db/connection.ts';
import { FAILING_AFTER_ATTEMPTS } from '../../server/src/outbox/endpoint-health.ts';
import type { Outbox } from '../../server/src/outbox/outbox.ts';
import { createServices, type Services } from '../../server/src/services/index.ts';
import { answered, outboxOn, room } from '../support/outbox.ts';

// An endpoint's health through the outbox that records its attempts, on a real database: one
// `webhook.failing` an incident and one `webhook.recovered` ending it, however many deliveries
// went well before (the outbox remembers healthy endpoints rather than reading them each time).
let dir: string;
let db: Database;
let services: Services;
let outbox: Outbox;
let actor: Actor;
let labs = 0;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'traininglab-health-'));
	db = openDatabase(join(dir, 'db.sqlite'));
	services = createServices(db, { allowInsecureWebhookUrls: true });
	outbox = outboxOn(db, { retryScheduleSeconds: [3600] });
	({ actor } = services.orgs.create({
		name: 'Health',
		admin: { email: 'ada@health.test', name: 'Ada' },
	}));
	services.webhookEndpoints.create(actor, {
		url: 'http://127.0.0.1:9/health',
		event_types: ['lab.created'],
	});
});
afterEach(() => {
	db.close();
	rmSync(dir, { recursive: true, force: true });
});

/** `count` new events, each delivery's one attempt answered `statusCode` and recorded as the dispatcher does. */
function attempts(count: number, statusCode: number): void {
	for (let n = 0; n < count; n++)
		services.labs.create(actor, { name: `Lab ${++labs}`, tier: 'vm' });
	const now = Date.now();
	const claimed = outbox.claimDue(room(100), 60_000);
	expect(claimed).toHaveLength(count);
	outbox.record(
		claimed.map((delivery) => ({
			delivery,
			outcome: answered(statusCode),
			startedAt: now,
			endedAt: now + 5,
		})),
	);
}

/** The health events recorded for the endpoint, oldest first, with their data. */
function healthEvents(): Array<{ type: string; data: Record<string, unknown> }> {
	return (
		db
			.prepare(
				"SELECT type, data FROM events WHERE type IN ('webhook.failing', 'webhook.recovered') ORDER BY seq",
			)
			.all() as Array<{ type: string; data: string }>
	).map((row) => ({ type: row.type, data: JSON.parse(row.data) }));
}

it('delivered attempts, then failures in a row: one webhook.failing, then one webhook.recovered', () => {
	attempts(3, 200);
	expect(healthEvents()).toEqual([]);
	attempts(FAILING_AFTER_ATTEMPTS - 1, 500);
	expect(healthEvents()).toEqual([]);
	attempts(3, 500);
	expect(healthEvents()).toEqual([
		expect.objectContaining({
			type: 'webhook.failing',
			data: expect.objectContaining({ consecutive_failures: FAILING_AFTER_ATTEMPTS }),
		}),
	]);
	attempts(2, 200);
	expect(healthEvents()).toEqual([
		expect.objectContaining({ type: 'webhook.failing' }),
		expect.objectContaining({
			type: 'webhook.recovered',
			data: expect.objectContaining({ failed_attempts: FAILING_AFTER_ATTEMPTS + 2 }),
		}),
	]);
});

it('a second incident after a recovery and more good deliveries is told again', () => {
	attempts(FAILING_AFTER_ATTEMPTS, 503);
	attempts(4, 204);
	attempts(FAILING_AFTER_ATTEMPTS, 500);
	attempts(1, 200);
	expect(healthEvents().map((event) => event.type)).toEqual([
		'webhook.failing',
		'webhook.recovered',
		'webhook.failing',
		'webhook.recovered',
	]);
});
