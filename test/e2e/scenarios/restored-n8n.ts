import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { eventually } from '../../../tooling/eventually';
import { patiently } from '../../../tooling/n8n/processes';
import type { E2e } from '../context';

/** An attempt started this long after its endpoint was created is held by n8n's "not registered" (server/src/outbox/outbox.ts). */
const NOT_REGISTERED_GRACE_MS = 10_000;

/**
 * n8n started again on a copy of its database from before a trigger workflow existed (a restored
 * backup, an instance moved): the API holds the endpoint at n8n's first 404 "not registered" rather
 * than spending the deliveries' retries, and each event runs once when the workflow is imported and
 * activated again. One process, whose database is a SQLite file.
 */
export function restoredN8nScenarios(e2e: E2e): void {
	describe("n8n's database restored from a backup taken before a trigger workflow existed", () => {
		it('holds the endpoint at the first "not registered", gives nothing up, and runs each event once when the workflow is activated again', async () => {
			const org = 'restoredN8n';
			const { client: api, org: of } = e2e.org(org);
			const database = e2e.n8n.sqliteFile!;
			const credentialId = await e2e.credentialOf(org);
			// The backup: taken while n8n runs (SQLite's online backup), before the workflow exists.
			const backup = join(e2e.work, 'n8n-backup.sqlite');
			const live = new Database(database, { readonly: true, fileMustExist: true });
			try {
				await live.backup(backup);
			} finally {
				live.close();
			}
			const workflow = e2e.memberRemovalWorkflow(org, credentialId);
			const first = await e2e.createTrigger(workflow, org);
			const [endpoint] = await e2e.endpointsOf(org);
			const removeTrainers = async (count: number) => {
				const members = await e2e.addTrainers(org, count);
				for (const member of members)
					expect((await api.delete(`/orgs/${of.id}/members/${member.user_id}`)).status).toBe(204);
				return members.map((member) => member.user_id).sort();
			};
			const before = await removeTrainers(1);
			expect(await e2e.noticesOnceSettled(org, first, before)).toEqual(before);

			// n8n stopped, its database replaced by the backup, started again: the workflow is gone
			// from it, while the API still has its endpoint, active.
			await e2e.n8n.processes.main.stop();
			e2e.forget(first); // not in the backup: nothing to deactivate after the test
			for (const file of [`${database}-wal`, `${database}-shm`]) rmSync(file, { force: true });
			copyFileSync(backup, database);
			await e2e.n8n.processes.main.restart();
			// Started (on 1.x the readiness gate waits for the end of n8n's start), it answers for the
			// workflow's path that it is not registered.
			await eventually(
				async () =>
					(await fetch(e2e.webhookUrlOf(workflow), { method: 'POST', body: '{}' })).status === 404,
				"n8n to answer that the workflow's webhook is not registered",
				patiently(120_000, e2e.n8n.log),
			);
			// The first attempt is one the endpoint's creation no longer covers (its grace): wait out
			// what is left of it, if anything, so that it is the first 404 that holds.
			const graceLeftMs = Date.parse(endpoint.created_at) + NOT_REGISTERED_GRACE_MS - Date.now();
			if (graceLeftMs > 0) await new Promise((resolve) => setTimeout(resolve, graceLeftMs));

			const during = await removeTrainers(3);
			const held = await eventually(
				async () => {
					const now = (await e2e.endpointsOf(org)).find((e) => e.id === endpoint.id)!;
					return now.held_reason !== null && now;
				},
				'the endpoint to be held on n8n\'s "not registered"',
				patiently(60_000, e2e.n8n.log),
			);
			expect(held.held_reason).toMatch(/webhook is not registered/);
			const heldEvents = (await api.get(`/orgs/${of.id}/events?limit=10&types=webhook.held`))
				.body as Array<{ actor: string; data: { webhook_id: string; last_status_code: number } }>;
			expect(heldEvents).toEqual([
				expect.objectContaining({
					actor: 'system',
					data: expect.objectContaining({ webhook_id: endpoint.id, last_status_code: 404 }),
				}),
			]);
			// The deliveries of the three, newest first: those sent before the hold answered "not
			// registered" once; none is given up, and none is sent again while held.
			const deliveries = async () =>
				(
					(await api.get(`/orgs/${of.id}/webhooks/${endpoint.id}/deliveries?limit=100`))
						.body as Array<{
						id: string;
						status: string;
						attempts: number;
						last_status_code: number | null;
					}>
				).slice(0, 3);
			const whileHeld = await deliveries();
			expect(whileHeld.filter((d) => d.attempts > 0).length).toBeGreaterThan(0);
			for (const delivery of whileHeld)
				expect(delivery).toEqual(
					delivery.attempts === 0
						? expect.objectContaining({ status: 'pending', last_status_code: null })
						: expect.objectContaining({ status: 'failed', attempts: 1, last_status_code: 404 }),
				);

			// The workflow imported again, as exported before (same webhook path), and activated.
			const again = await e2e.createTrigger(workflow, org);
			const notified = await e2e.noticesOnceSettled(org, again, during);
			expect(notified.filter((id) => during.includes(id)).sort()).toEqual(during);
			expect(notified).toHaveLength(before.length + during.length);
			expect(await e2e.endpointsOf(org)).toEqual([
				expect.objectContaining({ id: endpoint.id, held_since: null, held_reason: null }),
			]);
			// Each delivered after the release: an attempt made while n8n still puts the workflow live
			// may fail (seen on a loaded machine) and is retried on the schedule.
			const after = await deliveries();
			expect(after.map((d) => [d.id, d.status])).toEqual(whileHeld.map((d) => [d.id, 'succeeded']));
			after.forEach((d, i) => expect(d.attempts).toBeGreaterThan(whileHeld[i].attempts));
			console.log(
				`n8n ${e2e.n8n.version}: restored from a backup without the workflow; the endpoint was held at n8n's first "not registered", ` +
					`the 3 removals meanwhile each ran once after the workflow was imported and activated again`,
			);
		}, 300_000);
	});
}
