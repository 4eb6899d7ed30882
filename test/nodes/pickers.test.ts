import { sessionInput, type TestOrg, serverWithOrg } from '../support/fixtures';
import { type TestServer } from '../support/test-server';
import { fromList } from '../support/node-runner';
import { searchList } from '../support/n8n';

let server: TestServer;
let org: TestOrg;
beforeAll(async () => {
	({ server, org } = await serverWithOrg({ RATE_LIMIT_REQUESTS: '100000' }, 'Picker Org'));
});
afterAll(() => server.stop());
const credentials = () => ({ baseUrl: server.url, apiKey: org.trainer.key! });

describe('pickers', () => {
	it("Lab Version lists the published versions of every lab with the lab's name, and searches them", async () => {
		const all = await searchList('searchPublishedLabVersions', { credentials: credentials() });
		expect(all.results.map((r) => r.name)).toEqual([
			'Kubernetes Basics — v1',
			'Linux Fundamentals — v1',
		]);
		expect(all.results[0].value).toBe(org.publishedVersionId);
		const linux = await searchList('searchPublishedLabVersions', {
			credentials: credentials(),
			filter: 'linux',
		});
		expect(linux.results.map((r) => r.name)).toEqual(['Linux Fundamentals — v1']);
	});

	it('the publish picker lists the drafts of the chosen lab', async () => {
		const publish = { resource: 'labVersion', operation: 'publish' };
		const drafts = await searchList('searchDraftLabVersions', {
			credentials: credentials(),
			parameters: { ...publish, lab: fromList(org.labId) },
		});
		expect(drafts.results).toEqual([{ name: 'v2 (draft)', value: org.draftVersionId }]);
		expect(
			(
				await searchList('searchDraftLabVersions', {
					credentials: credentials(),
					parameters: publish,
				})
			).results,
		).toEqual([]);
	});

	it('Member searches by name and e-mail and shows the role', async () => {
		const found = await searchList('searchMembers', {
			credentials: credentials(),
			filter: 'TRAINER1',
		});
		expect(found.results).toEqual([
			{ name: `Trainer One <${org.trainerEmail}> (trainer)`, value: org.trainerUserId },
		]);
		expect(
			(
				await searchList('searchMembers', { credentials: credentials(), filter: 'ada' })
			).results.map((r) => r.value),
		).toEqual([org.adminUserId]);
		expect(
			(await searchList('searchMembers', { credentials: credentials() })).results,
		).toHaveLength(3);
	});

	it('Session searches by title and pages through long lists', async () => {
		const actor = { orgId: org.id, userId: org.adminUserId, email: 'a@x', role: 'admin' as const };
		for (let i = 0; i < 250; i++)
			server.services.sessions.create(
				actor,
				sessionInput(org, {
					title: i === 210 ? 'Needle session' : `Hay ${i}`,
					starts_at: '2026-12-01T09:00:00Z',
				}),
			);
		const first = await searchList('searchSessions', { credentials: credentials() });
		expect(first.results).toHaveLength(200);
		expect(first.results[0].name).toBe('Hay 0 (scheduled, 2026-12-01 09:00)');
		expect(first.paginationToken).toEqual(expect.any(String));
		const second = await searchList('searchSessions', {
			credentials: credentials(),
			paginationToken: first.paginationToken as string,
		});
		expect(second.results).toHaveLength(50);
		expect(second.paginationToken).toBeUndefined();

		const needle = await searchList('searchSessions', {
			credentials: credentials(),
			filter: 'needle',
			paginationToken: first.paginationToken as string,
		});
		expect(needle.results.map((r) => r.name)).toEqual([
			'Needle session (scheduled, 2026-12-01 09:00)',
		]);
	});

	it('Lab searches by name', async () => {
		const found = await searchList('searchLabs', { credentials: credentials(), filter: 'kube' });
		expect(found.results).toEqual([{ name: 'Kubernetes Basics (cluster)', value: org.labId }]);
	});
});
