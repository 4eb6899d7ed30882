import { createOrg, type TestOrg, serverWithOrg } from '../support/fixtures.ts';
import { type TestServer } from '../support/test-server.ts';

let server: TestServer;
let org: TestOrg;
beforeAll(async () => {
	({ server, org } = await serverWithOrg());
});
afterAll(() => server.stop());

describe('labs', () => {
	it('lists the labs of the organization to every role', async () => {
		for (const client of [org.admin, org.trainer]) {
			const response = await client.get('/labs');
			expect(response.status).toBe(200);
			expect(
				response.body.map((lab: { name: string; tier: string }) => [lab.name, lab.tier]),
			).toEqual([
				['Kubernetes Basics', 'cluster'],
				['Linux Fundamentals', 'vm'],
			]);
		}
	});

	it('creates a lab and refuses a name taken in the organization, in any letter case', async () => {
		const created = await org.admin.post('/labs', {
			name: 'Container Security',
			tier: 'container',
		});
		expect(created.status).toBe(201);
		expect(created.body).toEqual({
			id: expect.any(String),
			name: 'Container Security',
			tier: 'container',
			created_at: expect.any(String),
		});
		const taken = await org.admin.post('/labs', { name: 'container security', tier: 'vm' });
		expect(taken.status).toBe(409);
		expect(taken.body.error.code).toBe('name_taken');
	});

	it('allows the same lab name in another organization', async () => {
		const other = await createOrg(server);
		expect(
			(await other.admin.post('/labs', { name: 'Container Security', tier: 'container' })).status,
		).toBe(201);
	});

	it('rejects an unknown tier with 400', async () => {
		const response = await org.admin.post('/labs', { name: 'Bare metal', tier: 'metal' });
		expect(response.status).toBe(400);
		expect(response.body.error.details[0].path).toBe('tier');
	});
});

describe('lab versions', () => {
	it('lists versions oldest first; drafts have no published_at', async () => {
		const response = await org.trainer.get(`/labs/${org.labId}/versions`);
		expect(response.status).toBe(200);
		expect(response.body).toEqual([
			{
				id: org.publishedVersionId,
				lab_id: org.labId,
				version: 1,
				status: 'published',
				created_at: expect.any(String),
				published_at: expect.any(String),
			},
			{
				id: org.draftVersionId,
				lab_id: org.labId,
				version: 2,
				status: 'draft',
				created_at: expect.any(String),
			},
		]);
	});

	it('creates the next draft version and publishes it once', async () => {
		const lab = (await org.admin.post('/labs', { name: 'Versioned', tier: 'vm' })).body;
		const first = await org.admin.post(`/labs/${lab.id}/versions`);
		expect(first.status).toBe(201);
		expect(first.body).toMatchObject({ lab_id: lab.id, version: 1, status: 'draft' });
		expect(first.body).not.toHaveProperty('published_at');
		expect((await org.admin.post(`/labs/${lab.id}/versions`)).body.version).toBe(2);

		const published = await org.admin.post(`/labs/${lab.id}/versions/${first.body.id}/publish`);
		expect(published.status).toBe(200);
		expect(published.body).toMatchObject({
			id: first.body.id,
			status: 'published',
			published_at: expect.any(String),
		});
		const again = await org.admin.post(`/labs/${lab.id}/versions/${first.body.id}/publish`);
		expect(again.status).toBe(409);
		expect(again.body.error.code).toBe('invalid_state');

		const session = await org.trainer.post('/sessions', {
			title: 'On v1',
			lab_version_id: first.body.id,
			capacity: 3,
		});
		expect(session.status).toBe(201);
	});

	it('answers 404 for a version under another lab of the organization and for an unknown lab', async () => {
		const otherLab = (await org.admin.get('/labs')).body[1];
		expect(
			(await org.admin.post(`/labs/${otherLab.id}/versions/${org.draftVersionId}/publish`)).status,
		).toBe(404);
		expect(
			(await org.admin.get('/labs/00000000-0000-4000-8000-000000000000/versions')).status,
		).toBe(404);
		expect(
			(await org.admin.post('/labs/00000000-0000-4000-8000-000000000000/versions')).status,
		).toBe(404);
	});
});
