import { createOrg, type TestOrg } from '../support/fixtures.ts';
import {
	ROUTES,
	describeRoute,
	hasPathIds,
	pathFor,
	resourcesOf,
	validBodyFor,
	type OrgResources,
} from '../support/route-table.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

// The contract's role matrix, written out independently of the route table it checks.
const ADMIN_ONLY = new Set([
	'POST /orgs/{orgId}/members',
	'PATCH /orgs/{orgId}/members/{userId}',
	'DELETE /orgs/{orgId}/members/{userId}',
	'POST /orgs/{orgId}/close',
	'GET /orgs/{orgId}/events',
	'POST /labs',
	'POST /labs/{labId}/versions',
	'POST /labs/{labId}/versions/{versionId}/publish',
	'GET /orgs/{orgId}/api-keys',
	'POST /orgs/{orgId}/api-keys',
	'DELETE /orgs/{orgId}/api-keys/{keyId}',
	'GET /orgs/{orgId}/webhooks',
	'POST /orgs/{orgId}/webhooks',
	'GET /orgs/{orgId}/webhooks/{webhookId}',
	'DELETE /orgs/{orgId}/webhooks/{webhookId}',
	'GET /orgs/{orgId}/webhooks/{webhookId}/deliveries',
	'GET /orgs/{orgId}/webhooks/{webhookId}/deliveries/{deliveryId}',
	'GET /orgs/{orgId}/webhooks/{webhookId}/health',
	'PATCH /orgs/{orgId}/webhooks/{webhookId}',
	'POST /orgs/{orgId}/webhooks/{webhookId}/test',
	'POST /orgs/{orgId}/webhooks/{webhookId}/deliveries/{deliveryId}/resend',
	'POST /orgs/{orgId}/webhooks/{webhookId}/recover',
	'POST /orgs/{orgId}/webhooks/{webhookId}/rotate-secret',
	'GET /orgs/{orgId}/event-consumers',
	'POST /orgs/{orgId}/event-consumers',
	'GET /orgs/{orgId}/event-consumers/{consumerId}',
	'DELETE /orgs/{orgId}/event-consumers/{consumerId}',
	'POST /orgs/{orgId}/event-consumers/{consumerId}/batches',
	'DELETE /orgs/{orgId}/event-consumers/{consumerId}/batches/{batchId}',
]);

let server: TestServer;
let mine: TestOrg;
let theirs: TestOrg;
let theirIds: OrgResources;
beforeAll(async () => {
	server = await startTestServer({ RATE_LIMIT_REQUESTS: '100000' });
	mine = await createOrg(server, 'Mine');
	theirs = await createOrg(server, 'Theirs');
	theirIds = await resourcesOf(theirs);
});
afterAll(() => server.stop());

describe('role matrix', () => {
	it('declares every admin-only endpoint of the contract as admin-only, and no other', () => {
		const declared = ROUTES.filter((route) => route.access === 'admin').map(describeRoute);
		expect(new Set(declared)).toEqual(ADMIN_ONLY);
	});

	it.each(
		ROUTES.filter((route) => ADMIN_ONLY.has(describeRoute(route))).map((route) => [
			describeRoute(route),
			route,
		]),
	)('trainer gets 403 forbidden on %s, and nothing changes', async (_name, route) => {
		const ids = await resourcesOf(mine);
		// What a request causes: the outbox records its own events (actor `system`: an endpoint of an
		// earlier test failing) whenever its attempts end.
		const eventsBefore = (
			server.db.prepare("SELECT count(*) AS n FROM events WHERE actor <> 'system'").get() as {
				n: number;
			}
		).n;
		const response = await mine.trainer.request(route.method.toUpperCase(), pathFor(route, ids), {
			body: validBodyFor(route, mine),
		});
		expect(response.status).toBe(403);
		expect(response.body.error.code).toBe('forbidden');
		expect(
			(
				server.db.prepare("SELECT count(*) AS n FROM events WHERE actor <> 'system'").get() as {
					n: number;
				}
			).n,
		).toBe(eventsBefore);
	});

	it.each(
		ROUTES.filter((route) => !ADMIN_ONLY.has(describeRoute(route))).map((route) => [
			describeRoute(route),
			route,
		]),
	)('trainer may call %s', async (_name, route) => {
		const ids = await resourcesOf(mine);
		const response = await mine.trainer.request(route.method.toUpperCase(), pathFor(route, ids), {
			body: validBodyFor(route, mine),
		});
		expect(response.status).not.toBe(403);
		expect(response.status).toBeLessThan(500);
	});
});

describe('organization isolation', () => {
	const routesWithIds = ROUTES.filter(hasPathIds).map(
		(route) => [describeRoute(route), route] as const,
	);

	it.each(routesWithIds)(
		"%s with another organization's ids is 404 for admin and trainer keys, and changes nothing",
		async (_name, route) => {
			const before = server.db
				.prepare("SELECT count(*) AS events FROM events WHERE org_id = ? AND actor <> 'system'")
				.get(theirs.id);
			for (const client of [mine.admin, mine.trainer]) {
				const response = await client.request(
					route.method.toUpperCase(),
					pathFor(route, theirIds),
					{ body: validBodyFor(route, mine) },
				);
				expect(response.status).toBe(404);
				expect(response.body.error.code).toBe('not_found');
				for (const id of Object.values(theirIds)) expect(response.text).not.toContain(id);
			}
			expect(
				server.db
					.prepare("SELECT count(*) AS events FROM events WHERE org_id = ? AND actor <> 'system'")
					.get(theirs.id),
			).toEqual(before);
		},
	);

	/** The ids of an organization, with an endpoint that has a delivery, so that every list has items. */
	async function idsWithDelivery(org: TestOrg, ids: OrgResources): Promise<OrgResources> {
		const hook = await org.admin.post(`/orgs/${org.id}/webhooks`, {
			url: `https://93.184.215.14/${org.id}`,
			event_types: ['lab.created'],
		});
		await org.admin.post('/labs', { name: `Delivered ${org.id}`, tier: 'vm' });
		return { ...ids, webhookId: hook.body.id };
	}

	it('lists show nothing of another organization', async () => {
		const mineIds = await idsWithDelivery(mine, await resourcesOf(mine));
		const theirListIds = await idsWithDelivery(theirs, theirIds);
		for (const route of ROUTES.filter((r) => r.success.list)) {
			// The same list, read by the other organization itself, shows its items: those must never appear in ours.
			const theirList = await theirs.admin.get(`${pathFor(route, theirListIds)}?limit=200`);
			const theirItemIds = (theirList.body as Array<Record<string, string>>).map(
				(item) => item.id ?? item.user_id,
			);
			expect({ route: describeRoute(route), items: theirItemIds.length > 0 }).toEqual({
				route: describeRoute(route),
				items: true,
			});
			const response = await mine.admin.get(`${pathFor(route, mineIds)}?limit=200`);
			expect(response.status).toBe(200);
			expect((response.body as unknown[]).length).toBeGreaterThan(0);
			for (const id of [...theirItemIds, ...Object.values(theirListIds)])
				expect(response.text).not.toContain(id);
		}
	});

	it('a join code of another organization is unknown', async () => {
		const code = (await theirs.admin.post(`/sessions/${theirIds.sessionId}/join-code`)).body
			.join_code;
		const response = await mine.trainer.post('/join', {
			join_code: code,
			email: 'spy@x.test',
			name: 'Spy',
		});
		expect(response.status).toBe(404);
	});

	it("a session cannot be created from another organization's lab version", async () => {
		const response = await mine.admin.post('/sessions', {
			title: 'Borrowed',
			lab_version_id: theirs.publishedVersionId,
			capacity: 5,
		});
		expect(response.status).toBe(404);
	});
});
