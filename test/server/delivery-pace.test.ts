import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { Actor } from '../../server/src/core/actor.ts';
import { openDatabase } from '../../server/src/db/connection.ts';
import type { Outbox } from '../../server/src/outbox/outbox.ts';
import { MAX_EARLY_RETRIES_PER_STEP } from '../../server/src/outbox/retry-rules.ts';
import { createServices, type Services } from '../../server/src/services/index.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { answered, outboxOn, room } from '../support/outbox.ts';

// What a receiver's answers do to a delivery's pace, and who is told when it gives up: driven
// attempt by attempt through the outbox as the dispatcher drives it, on a real database, with the
// clock moved by the test.
const SCHEDULE_S = [60, 600, 3600];
const LONGEST_STEP_MS = 3600_000;
const SECOND = 1000;

let dir: string;
let db: Database;
let services: Services;
let outbox: Outbox;
let clock: ManualClock;
let actor: Actor;
let webhookId: string;

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'traininglab-pace-'));
	db = openDatabase(join(dir, 'db.sqlite'));
	clock = new ManualClock();
	services = createServices(db, {
		allowInsecureWebhookUrls: true,
		clock,
	});
	outbox = outboxOn(db, { retryScheduleSeconds: SCHEDULE_S, clock });
	({ actor } = services.orgs.create({
		name: 'Pace',
		admin: { email: 'ada@pace.test', name: 'Ada' },
	}));
	webhookId = subscribe('http://127.0.0.1:9/pace', ['lab.created']);
});
afterEach(() => {
	db.close();
	rmSync(dir, { recursive: true, force: true });
});

function subscribe(url: string, eventTypes: Array<'lab.created' | 'webhook.delivery_exhausted'>) {
	return services.webhookEndpoints.create(actor, { url, event_types: eventTypes }).id;
}

/** A receiver's answer: its status and headers (the body is empty). */
interface Reply {
	statusCode: number;
	headers: Record<string, string>;
}
const answer = (statusCode: number, headers: Record<string, string> = {}): Reply => ({
	statusCode,
	headers,
});

/** Makes the attempts due now (all endpoints), each answered by `reply`; returns how many there were. */
function attemptDue(reply: (webhookId: string) => Reply): number {
	const due = outbox.claimDue(room(100), 60_000);
	const now = clock.now();
	outbox.record(
		due.map((delivery) => {
			const { statusCode, headers } = reply(delivery.webhook_id);
			return {
				delivery,
				outcome: answered(statusCode, headers, now),
				startedAt: now,
				endedAt: now,
			};
		}),
	);
	return due.length;
}

function theDelivery(endpoint = webhookId) {
	const [delivery] = services.deliveryOperations.listDeliveries(actor.orgId, endpoint, {
		limit: 1,
	}).items;
	return services.deliveryOperations.getDelivery(actor.orgId, endpoint, delivery.id);
}

/** Milliseconds from now until the delivery's next attempt. */
const waitOf = (endpoint = webhookId) =>
	Date.parse(theDelivery(endpoint).next_attempt_at!) - clock.now();

/** Moves the clock to the delivery's next attempt and makes it, answered by `result`. */
function nextAttempt(result: Reply, endpoint = webhookId): void {
	clock.advance(Math.max(0, waitOf(endpoint)));
	expect(attemptDue(() => result)).toBe(1);
}

const causes = () => theDelivery().attempt_log.map((attempt) => attempt.cause);
const exhaustedEvents = () =>
	services.events
		.list(actor.orgId, { limit: 200 }, { types: ['webhook.delivery_exhausted'] })
		.items.map((event) => event.data);

beforeEach(() => {
	services.labs.create(actor, { name: 'Paced', tier: 'vm' });
});

describe('a receiver that asks for a pace with Retry-After', () => {
	it('is tried again when it asked, sooner than the schedule, without using up a step', () => {
		expect(attemptDue(() => answer(500))).toBe(1);
		const firstStep = waitOf();
		expect(firstStep).toBeGreaterThanOrEqual(54 * SECOND); // 60 s ±10%
		nextAttempt(answer(503, { 'retry-after': '5' }));
		expect(waitOf()).toBe(5 * SECOND);
		const stepDue = clock.now() + 540 * SECOND; // the second step: 600 s ±10%, at least
		nextAttempt(answer(429, { 'retry-after': '5' }));
		expect(waitOf()).toBe(5 * SECOND);
		// A failure without Retry-After takes the step as the schedule had it, not the one after.
		nextAttempt(answer(500));
		expect(clock.now() + waitOf()).toBeGreaterThanOrEqual(stepDue);
		expect(waitOf()).toBeLessThanOrEqual(660 * SECOND);
		nextAttempt(answer(204));
		expect(theDelivery().status).toBe('succeeded');
		expect(causes()).toEqual(['schedule', 'schedule', 'retry_after', 'retry_after', 'schedule']);
	});

	it('takes an HTTP date, and a wait longer than the step delays the step, at most the longest step', () => {
		expect(attemptDue(() => answer(503, { 'retry-after': '7200' }))).toBe(1);
		expect(waitOf()).toBe(LONGEST_STEP_MS);
		const inTwoMinutes = new Date(clock.now() + LONGEST_STEP_MS + 120 * SECOND).toUTCString();
		nextAttempt(answer(503, { 'retry-after': inTwoMinutes }));
		expect(waitOf()).toBe(120 * SECOND); // sooner than the second step (600 s): an early retry
		expect(causes()).toEqual(['schedule', 'schedule']);
	});

	it('is ignored on any status but 429 and 503, and when it is neither seconds nor a date', () => {
		expect(attemptDue(() => answer(500, { 'retry-after': '5' }))).toBe(1);
		expect(waitOf()).toBeGreaterThanOrEqual(54 * SECOND);
		nextAttempt(answer(503, { 'retry-after': 'soon' }));
		expect(waitOf()).toBeGreaterThanOrEqual(540 * SECOND);
	});

	it('cannot keep a delivery retrying without end, nor make it give up before its schedule ends', () => {
		const started = clock.now();
		let attempts = 0;
		while (theDelivery().status !== 'exhausted') {
			if (attempts > 0) clock.advance(Math.max(0, waitOf()));
			attempts += attemptDue(() => answer(503, { 'retry-after': '1' }));
			expect(attempts).toBeLessThanOrEqual(
				(SCHEDULE_S.length + 1) * (MAX_EARLY_RETRIES_PER_STEP + 1),
			);
		}
		// Every step of the schedule was waited for: 60 + 600 + 3600 s, less 10% jitter.
		expect(clock.now() - started).toBeGreaterThanOrEqual(0.9 * 4260 * SECOND);
		expect(causes().filter((cause) => cause === 'retry_after')).toHaveLength(
			SCHEDULE_S.length * MAX_EARLY_RETRIES_PER_STEP,
		);
		expect(exhaustedEvents()).toHaveLength(1);
	});
});

describe('a delivery that gives up', () => {
	it('records webhook.delivery_exhausted with the endpoint, the event and the last answer', () => {
		attemptDue(() => answer(500));
		for (let step = 0; step < SCHEDULE_S.length; step++) nextAttempt(answer(502));
		const delivery = theDelivery();
		expect(delivery.status).toBe('exhausted');
		expect(exhaustedEvents()).toEqual([
			{
				webhook_id: webhookId,
				url: 'http://127.0.0.1:9/pace',
				delivery_id: delivery.id,
				event_id: delivery.event_id,
				event_type: 'lab.created',
				attempts: 4,
				last_status_code: 502,
				last_error: 'HTTP 502',
			},
		]);
	});

	it('alerts an endpoint subscribed to it, and an alert that itself gives up alerts no one', () => {
		const alerts = subscribe('http://127.0.0.1:9/alerts', ['webhook.delivery_exhausted']);
		// Every endpoint fails: the lab's delivery gives up, its alert is queued and gives up too.
		attemptDue(() => answer(500));
		for (let round = 0; round < 3 * (SCHEDULE_S.length + 1); round++) {
			clock.advance(1.2 * LONGEST_STEP_MS);
			attemptDue(() => answer(500));
		}
		expect(theDelivery().status).toBe('exhausted');
		expect(theDelivery(alerts)).toMatchObject({
			event_type: 'webhook.delivery_exhausted',
			status: 'exhausted',
		});
		expect(exhaustedEvents()).toEqual([expect.objectContaining({ webhook_id: webhookId })]);
	});

	it('records nothing for a test event that gives up', () => {
		attemptDue(() => answer(204));
		services.deliveryOperations.sendTest(actor, webhookId, 'lab.created');
		attemptDue(() => answer(500));
		for (let step = 0; step < SCHEDULE_S.length; step++) nextAttempt(answer(500));
		expect(theDelivery()).toMatchObject({ test: true, status: 'exhausted' });
		expect(exhaustedEvents()).toEqual([]);
	});
});
