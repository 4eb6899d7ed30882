import { sessionInput, type TestOrg, serverWithOrg } from '../support/fixtures.ts';
import { nextLink } from '../../tooling/api/client.ts';
import { type TestServer } from '../support/test-server.ts';

let server: TestServer;
let org: TestOrg;
beforeAll(async () => {
	({ server, org } = await serverWithOrg({ RATE_LIMIT_REQUESTS: '100000' }));
});
afterAll(() => server.stop());

async function createSessions(count: number, prefix: string) {
	const ids: string[] = [];
	for (let i = 0; i < count; i++)
		ids.push(
			(await org.trainer.post('/sessions', sessionInput(org, { title: `${prefix} ${i}` }))).body.id,
		);
	return ids;
}

describe('cursor paging', () => {
	it('returns a bare array with an absolute Link to the next page, and none on the last page', async () => {
		await createSessions(5, 'paged');
		const first = await org.trainer.get('/sessions?limit=2');
		expect(first.status).toBe(200);
		expect(Array.isArray(first.body)).toBe(true);
		expect(first.body).toHaveLength(2);
		const next = nextLink(first.headers)!;
		expect(next).toMatch(new RegExp(`^${server.url}/sessions\\?limit=2&cursor=[A-Za-z0-9_-]+$`));
		expect(first.headers.get('link')).toBe(`<${next}>; rel="next"`);
		const all = await org.trainer.getAll('/sessions?limit=2');
		expect(all.pages).toBe(3);
		expect(nextLink((await org.trainer.get('/sessions?limit=200')).headers)).toBeNull();
	});

	it('sends a long page as UTF-8 JSON of its length in bytes, and HEAD the same headers only', async () => {
		await createSessions(30, 'Atelier « naïve » — 日本語 ✓');
		const url = `${server.url}/sessions?limit=100`;
		const headers = { authorization: `Bearer ${org.trainer.key}` };
		const get = await fetch(url, { headers });
		const bytes = Buffer.from(await get.arrayBuffer());
		expect(get.status).toBe(200);
		expect(get.headers.get('content-type')).toBe('application/json; charset=utf-8');
		expect(get.headers.get('cache-control')).toBe('no-store');
		expect(Number(get.headers.get('content-length'))).toBe(bytes.length);
		const page = JSON.parse(bytes.toString('utf8')) as Array<{ title: string }>;
		expect(page.filter((s) => s.title.startsWith('Atelier « naïve » — 日本語 ✓'))).toHaveLength(30);
		expect(bytes.length).toBeGreaterThan(JSON.stringify(page).length);

		const head = await fetch(url, { method: 'HEAD', headers });
		expect(head.status).toBe(200);
		expect(head.headers.get('content-type')).toBe('application/json; charset=utf-8');
		expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
		expect((await head.arrayBuffer()).byteLength).toBe(0);
	});

	it('uses a default page size of 100', async () => {
		await createSessions(101 - (await org.trainer.getAll('/sessions')).items.length, 'default');
		const page = await org.trainer.get('/sessions');
		expect(page.body).toHaveLength(100);
		expect(nextLink(page.headers)).not.toBeNull();
	});

	it('yields every item exactly once while items are being created', async () => {
		const existing = (await org.trainer.getAll('/sessions')).items.map((s: { id: string }) => s.id);
		const seen: string[] = [];
		const createdDuring: string[] = [];
		let next: string | null = '/sessions?limit=7';
		while (next) {
			const page: { body: Array<{ id: string }>; headers: Headers } = await org.trainer.get(next);
			seen.push(...page.body.map((s) => s.id));
			createdDuring.push(...(await createSessions(3, 'during')));
			next = nextLink(page.headers);
			if (createdDuring.length > 300) throw new Error('paging never ended');
		}
		expect(new Set(seen).size).toBe(seen.length);
		expect(seen.slice(0, existing.length)).toEqual(existing);
		// Items created while paging appear after all earlier ones; the tail up to the last page is seen too.
		expect(seen.slice(existing.length)).toEqual(
			createdDuring.slice(0, seen.length - existing.length),
		);
	});

	it('pages the activity log newest first without gaps or duplicates while events are added', async () => {
		const before = (await org.admin.getAll(`/orgs/${org.id}/events?limit=200`)).items.map(
			(e: { id: string }) => e.id,
		);
		const seen: string[] = [];
		let next: string | null = `/orgs/${org.id}/events?limit=9`;
		while (next) {
			const page: { body: Array<{ id: string }>; headers: Headers } = await org.admin.get(next);
			seen.push(...page.body.map((e) => e.id));
			await createSessions(2, 'event');
			next = nextLink(page.headers);
		}
		// Events added after the first page are newer than the cursor and not part of this walk.
		expect(seen).toEqual(before);
	});

	it('pages every list endpoint', async () => {
		await org.admin.post(`/orgs/${org.id}/api-keys`, { name: 'extra', role: 'trainer' });
		await org.admin.post(`/orgs/${org.id}/webhooks`, {
			url: 'https://93.184.215.14/a',
			event_types: ['org.closed'],
		});
		await org.admin.post(`/orgs/${org.id}/webhooks`, {
			url: 'https://93.184.215.14/b',
			event_types: ['org.closed'],
		});
		for (const path of [
			`/orgs/${org.id}/members`,
			`/orgs/${org.id}/api-keys`,
			`/orgs/${org.id}/webhooks`,
			'/labs',
			`/labs/${org.labId}/versions`,
		]) {
			const unpaged = (await org.admin.get(`${path}?limit=200`)).body;
			expect(unpaged.length).toBeGreaterThanOrEqual(2);
			const paged = await org.admin.getAll(`${path}?limit=1`);
			expect(paged.pages).toBe(unpaged.length);
			expect(paged.items).toEqual(unpaged);
		}
	});

	it.each([
		'garbage',
		'cDA',
		'cC0x',
		Buffer.from('p1; DROP TABLE').toString('base64url'),
		'x'.repeat(65),
	])('refuses the invalid cursor %s with 400', async (cursor) => {
		const response = await org.trainer.get(`/sessions?cursor=${cursor}`);
		expect(response.status).toBe(400);
		expect(response.body.error.details[0].path).toBe('cursor');
	});
});
