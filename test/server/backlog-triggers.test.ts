import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { openDatabase } from '../../server/src/db/connection.ts';
import { MIGRATIONS, migrate } from '../../server/src/db/migrations.ts';
import { Backlog } from '../../server/src/outbox/backlog.ts';

// The rows that triggers keep for each endpoint's waiting deliveries (migration 21), against the
// deliveries themselves counted the slow way, after every step of a long run of the changes the
// outbox and the API make: deliveries queued, delivered, failed and retried, given up one by one
// and all at once, put back, deleted by retention, endpoints deleted and created. The steps are
// drawn from a seeded generator, so a failure names a step that runs again the same way.
const WAITING = "status IN ('pending', 'failed')";

let dir: string;
let db: Database;
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'traininglab-backlog-'));
	db = openDatabase(join(dir, 'db.sqlite'));
	addOrg(db);
});
afterEach(() => {
	db.close();
	rmSync(dir, { recursive: true, force: true });
});

/** A seeded generator of numbers in [0, 1) (mulberry32). */
function seeded(seed: number): () => number {
	let state = seed;
	return () => {
		state = (state + 0x6d2b79f5) | 0;
		let t = Math.imul(state ^ (state >>> 15), 1 | state);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** The organization `o1`, which every endpoint and event belongs to. */
function addOrg(into: Database): void {
	into
		.prepare(
			"INSERT INTO orgs (id, name, slug, created_at) VALUES ('o1', 'Org', 'org', '2026-01-01T00:00:00.000Z')",
		)
		.run();
}

/** An endpoint `id` of the organization. */
function addEndpoint(into: Database, id: string): void {
	into
		.prepare(
			"INSERT INTO webhooks (id, org_id, url, event_types, secret, created_at) VALUES (?, 'o1', ?, '[]', 's', '2026-01-01T00:00:00.000Z')",
		)
		.run(id, `http://127.0.0.1/${id}`);
}

/** Event number `n`, `n` seconds into 2026, and its delivery to `webhookId` with `status`. */
function addDelivery(into: Database, n: number, webhookId: string, status = 'pending'): void {
	const eventId = `e${n}`;
	into
		.prepare(
			"INSERT INTO events (id, org_id, type, actor, occurred_at, data) VALUES (?, 'o1', 'session.created', 'u1', ?, '{}')",
		)
		.run(eventId, new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString());
	into
		.prepare(
			'INSERT INTO webhook_deliveries (id, webhook_id, event_id, status) VALUES (?, ?, ?, ?)',
		)
		.run(`d${n}`, webhookId, eventId, status);
}

/** What the backlog must answer, counted from the deliveries themselves. */
function expected(webhookId?: string) {
	const where = webhookId ? `${WAITING} AND webhook_id = ?` : WAITING;
	const args = webhookId ? [webhookId] : [];
	const { waiting } = db
		.prepare(`SELECT count(*) AS waiting FROM webhook_deliveries WHERE ${where}`)
		.get(...args) as { waiting: number };
	const oldest = db
		.prepare(
			`SELECT occurred_at FROM events
       WHERE id = (SELECT event_id FROM webhook_deliveries WHERE ${where} ORDER BY seq LIMIT 1)`,
		)
		.get(...args) as { occurred_at: string } | undefined;
	return { waiting, oldest_event_at: oldest?.occurred_at ?? null };
}

it('counts each endpoint’s waiting deliveries and finds the oldest through every kind of change', () => {
	const backlog = new Backlog(db);
	const random = seeded(59);
	const pick = <T>(items: T[]): T | undefined => items[Math.floor(random() * items.length)];
	let made = 0;
	const endpoints: string[] = [];
	const createEndpoint = () => {
		const id = `w${++made}`;
		addEndpoint(db, id);
		endpoints.push(id);
	};
	const deliveriesWhere = (condition: string) =>
		(
			db.prepare(`SELECT seq FROM webhook_deliveries WHERE ${condition}`).all() as {
				seq: number;
			}[]
		).map((row) => row.seq);
	const setStatus = (seq: number | undefined, status: string) => {
		if (seq !== undefined)
			db.prepare('UPDATE webhook_deliveries SET status = ? WHERE seq = ?').run(status, seq);
	};
	for (let index = 0; index < 3; index++) createEndpoint();

	const steps: Array<[string, () => void]> = [
		[
			'queued',
			() => {
				const webhookId = pick(endpoints);
				if (webhookId) addDelivery(db, ++made, webhookId);
			},
		],
		['delivered', () => setStatus(pick(deliveriesWhere(WAITING)), 'succeeded')],
		[
			'failed, to be retried',
			() => setStatus(pick(deliveriesWhere("status = 'pending'")), 'failed'),
		],
		['given up', () => setStatus(pick(deliveriesWhere(WAITING)), 'exhausted')],
		[
			'put back',
			() => setStatus(pick(deliveriesWhere("status IN ('succeeded', 'exhausted')")), 'pending'),
		],
		[
			'all of an endpoint given up at once',
			() =>
				db
					.prepare(
						`UPDATE webhook_deliveries SET status = 'exhausted' WHERE webhook_id = ? AND ${WAITING}`,
					)
					.run(pick(endpoints) ?? ''),
		],
		[
			'deleted',
			() => {
				const seq = pick(deliveriesWhere('1'));
				if (seq !== undefined) db.prepare('DELETE FROM webhook_deliveries WHERE seq = ?').run(seq);
			},
		],
		[
			'an endpoint deleted, another created',
			() => {
				const webhookId = endpoints.splice(Math.floor(random() * endpoints.length), 1)[0];
				if (webhookId) db.prepare('DELETE FROM webhooks WHERE id = ?').run(webhookId);
				createEndpoint();
			},
		],
	];
	// Mostly queued, so that backlogs grow; endpoints go rarely.
	const weights = [10, 4, 2, 2, 2, 0.3, 1, 0.1];
	const sum = weights.reduce((a, b) => a + b);
	let largest = 0;
	/** Steps after which the oldest was another waiting one: a first one settled or gone. */
	let advanced = 0;
	let oldestBefore: string | null = null;
	for (let step = 0; step < 3000; step++) {
		let draw = random() * sum;
		const index = weights.findIndex((weight) => (draw -= weight) < 0);
		const [name, run] = steps[index];
		run();
		const whole = expected();
		largest = Math.max(largest, whole.waiting);
		if (
			whole.oldest_event_at !== null &&
			oldestBefore !== null &&
			whole.oldest_event_at > oldestBefore
		)
			advanced++;
		oldestBefore = whole.oldest_event_at;
		const answered = {
			step,
			name,
			waiting: backlog.waiting(),
			oldest: backlog.oldestWaitingEventAt(),
			endpoints: endpoints.map((id) => backlog.waitingOf(id)),
		};
		expect(answered).toEqual({
			step,
			name,
			waiting: whole.waiting,
			oldest: whole.oldest_event_at,
			endpoints: endpoints.map((id) => expected(id)),
		});
	}
	// The run reached large backlogs, and saw the oldest move on many times: it tested something.
	expect(largest).toBeGreaterThan(50);
	expect(advanced).toBeGreaterThan(20);
});

it('starts an upgraded database with the rows its deliveries make', () => {
	db.close();
	const path = join(dir, 'upgraded.sqlite');
	const old = new BetterSqlite3(path);
	migrate(
		old,
		MIGRATIONS.filter((migration) => migration.version < 21),
	);
	addOrg(old);
	for (const id of ['w1', 'w2', 'w3']) addEndpoint(old, id);
	// w1: its first given up and its second delivered, two waiting; w2: nothing waits; w3: none at all.
	addDelivery(old, 1, 'w1', 'exhausted');
	addDelivery(old, 2, 'w2', 'succeeded');
	addDelivery(old, 3, 'w1', 'succeeded');
	addDelivery(old, 4, 'w1', 'failed');
	addDelivery(old, 5, 'w1', 'pending');
	old.close();

	db = openDatabase(path);
	const backlog = new Backlog(db);
	expect(backlog.waitingOf('w1')).toEqual({
		waiting: 2,
		oldest_event_at: '2026-01-01T00:00:04.000Z',
	});
	expect(backlog.waitingOf('w2')).toEqual({ waiting: 0, oldest_event_at: null });
	expect(backlog.waitingOf('w3')).toEqual({ waiting: 0, oldest_event_at: null });
	expect([backlog.waiting(), backlog.oldestWaitingEventAt()]).toEqual([
		2,
		'2026-01-01T00:00:04.000Z',
	]);
	// And kept from there, for the endpoint that had no delivery as much as for the others.
	db.prepare("UPDATE webhook_deliveries SET status = 'succeeded' WHERE id = 'd4'").run();
	addDelivery(db, 6, 'w3');
	expect(backlog.waitingOf('w1')).toEqual(expected('w1'));
	expect(backlog.waitingOf('w1').oldest_event_at).toBe('2026-01-01T00:00:05.000Z');
	expect(backlog.waitingOf('w3')).toEqual({
		waiting: 1,
		oldest_event_at: '2026-01-01T00:00:06.000Z',
	});
});
