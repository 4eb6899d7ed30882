import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ApiClient } from '../../tooling/api/client.ts';
import { bootstrapOrg, spawnServer } from '../../tooling/api/server-process.ts';
import { Receiver } from '../support/receiver.ts';

const EVENTS = 1200;

it(`delivers every committed event of a ${EVENTS}-event burst at least once across a SIGKILL`, async () => {
	const dir = mkdtempSync(join(tmpdir(), 'traininglab-crash-'));
	const receiver = await Receiver.start();
	const env = {
		DATABASE_PATH: join(dir, 'db.sqlite'),
		WEBHOOK_ALLOW_INSECURE_URLS: 'true',
		RATE_LIMIT_REQUESTS: '1000000',
	};
	try {
		const boot = bootstrapOrg(env.DATABASE_PATH, 'Crash Org', 'c@crash.test');
		const first = await spawnServer(env);
		const client = new ApiClient(first.url, boot.api_key);
		const hook = (
			await client.post(`/orgs/${boot.org.id}/webhooks`, {
				url: `${receiver.url}/burst`,
				event_types: ['session.created'],
			})
		).body;
		const versionId = (await client.get(`/labs/${(await client.get('/labs')).body[0].id}/versions`))
			.body[0].id;

		// 16 parallel writers; the server is killed once about half of the burst is committed.
		let started = 0;
		let acknowledged = 0;
		const writer = async () => {
			while (started < EVENTS) {
				started++;
				const response = await client
					.post('/sessions', { title: `Burst ${started}`, lab_version_id: versionId, capacity: 5 })
					.catch(() => null);
				if (response?.status === 201) acknowledged++;
				if (!response) return;
			}
		};
		const writers = Array.from({ length: 16 }, writer);
		await new Promise<void>((resolve) => {
			const check = setInterval(() => {
				if (acknowledged >= EVENTS / 2) {
					clearInterval(check);
					first.child.kill('SIGKILL');
					resolve();
				}
			}, 2);
		});
		await Promise.all(writers);
		await first.exited;
		const deliveredBeforeRestart = new Set(
			receiver.at('/burst').map((d) => d.headers['webhook-id']),
		);
		const atKill = new Database(env.DATABASE_PATH, { readonly: true });
		const committedBeforeKill = atKill
			.prepare("SELECT id FROM events WHERE type = 'session.created'")
			.pluck()
			.all() as string[];
		const outboxAtKill = atKill
			.prepare("SELECT count(*) FROM webhook_deliveries WHERE status != 'succeeded'")
			.pluck()
			.get() as number;
		atKill.close();
		const undeliveredAtKill = committedBeforeKill.filter((id) => !deliveredBeforeRestart.has(id));

		const second = await spawnServer(env);
		// Finish the burst on the restarted server, so the total reaches EVENTS.
		const resumed = new ApiClient(second.url, boot.api_key);
		const committedSoFar = () => {
			const db = new Database(env.DATABASE_PATH, { readonly: true });
			try {
				return (
					db.prepare("SELECT count(*) AS n FROM events WHERE type = 'session.created'").get() as {
						n: number;
					}
				).n;
			} finally {
				db.close();
			}
		};
		for (let i = committedSoFar(); i < EVENTS; i++)
			await resumed.post('/sessions', {
				title: `After ${i}`,
				lab_version_id: versionId,
				capacity: 5,
			});

		const db = new Database(env.DATABASE_PATH, { readonly: true });
		const eventIds = new Set(
			db.prepare("SELECT id FROM events WHERE type = 'session.created'").pluck().all() as string[],
		);
		expect(eventIds.size).toBeGreaterThanOrEqual(EVENTS);
		await receiver.waitFor(
			() =>
				[...eventIds].every((id) => receiver.received.some((d) => d.headers['webhook-id'] === id)),
			60_000,
		);
		const delivered = new Set(receiver.at('/burst').map((d) => d.headers['webhook-id']));
		expect([...eventIds].filter((id) => !delivered.has(id))).toEqual([]);
		expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
		expect(
			db
				.prepare(
					"SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ? AND status != 'succeeded'",
				)
				.get(hook.id),
		).toEqual({ n: 0 });
		db.close();
		// The kill really happened mid-burst: deliveries were open (queued or in flight) in the outbox,
		// and every event committed before the kill but not yet received then arrived after the restart.
		expect(outboxAtKill).toBeGreaterThan(0);
		expect(undeliveredAtKill.filter((id) => !delivered.has(id))).toEqual([]);
		second.child.kill('SIGTERM');
		expect(await second.exited).toBe(0);
	} finally {
		await receiver.stop();
		rmSync(dir, { recursive: true, force: true });
	}
}, 120_000);
