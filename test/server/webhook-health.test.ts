import { removeTrainers, serverWithOrg, type TestOrg } from '../support/fixtures.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { Receiver } from '../support/receiver.ts';
import type { TestServer } from '../support/test-server.ts';

// GET …/webhooks/{webhookId}/health: what waits, and the attempts of the last hour and day, on a
// server whose clock the test moves (an answer's time is how far the receiver moved it).
const HOUR_MS = 60 * 60 * 1000;
const ANSWER_MS = 120;

let server: TestServer;
let org: TestOrg;
let receiver: Receiver;
let clock: ManualClock;
let webhookId: string;
beforeEach(async () => {
	receiver = await Receiver.start();
	// Removals are answered 204 after ANSWER_MS, labs 500 at once.
	receiver.reply = (delivery) => {
		if (JSON.parse(delivery.body).type === 'lab.created') return { status: 500, body: 'down' };
		clock.advance(ANSWER_MS);
		return { status: 204 };
	};
	clock = new ManualClock(Date.parse('2026-03-02T10:17:00.000Z'));
	({ server, org } = await serverWithOrg(
		// A failed delivery retries in an hour: each has one attempt here.
		{ WEBHOOK_ALLOW_INSECURE_URLS: 'true', WEBHOOK_RETRY_SCHEDULE_S: '3600' },
		undefined,
		{ clock },
	));
	webhookId = (
		await org.admin.post(`/orgs/${org.id}/webhooks`, {
			url: `${receiver.url}/health`,
			event_types: ['member.removed', 'lab.created'],
		})
	).body.id;
});
afterEach(async () => {
	await server.stop();
	await receiver.stop();
});

const health = async () => {
	const response = await org.admin.get(`/orgs/${org.id}/webhooks/${webhookId}/health`);
	expect(response.status).toBe(200);
	return response.body;
};

async function labs(count: number): Promise<string[]> {
	const times: string[] = [];
	for (let n = 0; n < count; n++) {
		await org.admin.post('/labs', { name: `Lab ${n} ${clock.now()}`, tier: 'vm' });
		times.push(new Date(clock.now()).toISOString());
	}
	return times;
}

/** Removals one after another, each delivered before the next (the clock is shared: no overlap). */
async function removals(count: number): Promise<void> {
	for (let n = 0; n < count; n++) {
		await removeTrainers(org, 1);
		await server.webhooksIdle();
	}
}

it('counts the last hour and day: attempts, delivered, success rate, mean answer time, and what waits', async () => {
	await removals(3);
	const [firstFailed] = await labs(2);
	await server.webhooksIdle();

	const now = await health();
	expect(now.waiting).toBe(2);
	expect(now.oldest_waiting_event_at).toBe(firstFailed);
	expect(now.last_hour).toMatchObject({
		attempts: 5,
		delivered: 3,
		success_rate: 0.6,
		mean_answer_ms: ANSWER_MS,
	});
	expect(now.last_hour.points).toHaveLength(12);
	expect(now.last_day.points).toHaveLength(24);
	// The current 5 minutes and hour are the last points; every earlier one is empty.
	expect(now.last_hour.points.at(-1)).toEqual({
		start: '2026-03-02T10:15:00.000Z',
		attempts: 5,
		delivered: 3,
		mean_answer_ms: ANSWER_MS,
	});
	expect(now.last_hour.points[0].start).toBe('2026-03-02T09:20:00.000Z');
	expect(now.last_day.points.at(-1)).toMatchObject({
		start: '2026-03-02T10:00:00.000Z',
		attempts: 5,
	});
	expect(now.last_day.points[0].start).toBe('2026-03-01T11:00:00.000Z');
	expect(
		now.last_hour.points.slice(0, -1).every((p: { attempts: number }) => p.attempts === 0),
	).toBe(true);

	// Two hours on: one more removal, and the two failed labs' retries (due an hour after their
	// first attempts), failing again. The hour holds those three; the day holds all eight.
	clock.advance(2 * HOUR_MS);
	await removals(1);
	const later = await health();
	expect(later.last_hour).toMatchObject({ attempts: 3, delivered: 1, mean_answer_ms: ANSWER_MS });
	expect(later.last_day).toMatchObject({ attempts: 8, delivered: 4 });
	expect(later.last_day.points.filter((p: { attempts: number }) => p.attempts > 0)).toEqual([
		{ start: '2026-03-02T10:00:00.000Z', attempts: 5, delivered: 3, mean_answer_ms: ANSWER_MS },
		{ start: '2026-03-02T12:00:00.000Z', attempts: 3, delivered: 1, mean_answer_ms: ANSWER_MS },
	]);

	// A day on, the first hour's attempts have left the day; the upkeep deletes what they were counted in.
	clock.advance(23 * HOUR_MS);
	expect((await health()).last_day).toMatchObject({ attempts: 3, delivered: 1 });
	await server.services.retention.prune(async () => true);
	expect(server.db.prepare('SELECT count(*) AS n FROM webhook_attempt_buckets').get()).toEqual({
		n: 1,
	});
});

it('an endpoint without attempts: nothing waits, no rate and no answer time', async () => {
	expect(await health()).toEqual({
		waiting: 0,
		oldest_waiting_event_at: null,
		last_hour: expect.objectContaining({
			attempts: 0,
			delivered: 0,
			success_rate: null,
			mean_answer_ms: null,
		}),
		last_day: expect.objectContaining({ attempts: 0, success_rate: null }),
	});
});

it('counts what a held endpoint keeps as waiting', async () => {
	await org.admin.patch(`/orgs/${org.id}/webhooks/${webhookId}`, { held: true });
	await removeTrainers(org, 4);
	expect(await health()).toMatchObject({ waiting: 4, last_hour: { attempts: 0 } });
});
