import { type TestOrg, serverWithOrg } from '../support/fixtures.ts';
import { type TestServer } from '../support/test-server.ts';
import { ManualClock } from '../support/manual-clock.ts';

let server: TestServer;
let org: TestOrg;
const clock = new ManualClock();
beforeAll(async () => {
	({ server, org } = await serverWithOrg(
		{ RATE_LIMIT_REQUESTS: '5', RATE_LIMIT_WINDOW_S: '2' },
		undefined,
		{ clock },
	));
});
afterAll(() => server.stop());

describe('rate limit', () => {
	it('counts down RateLimit on every response, then answers 429 with Retry-After, and recovers after the window', async () => {
		const remaining: string[] = [];
		for (let i = 0; i < 5; i++) {
			const response = await org.trainer.get('/me');
			expect(response.status).toBe(200);
			expect(response.headers.get('ratelimit-policy')).toBe('"default";q=5;w=2');
			remaining.push(response.headers.get('ratelimit')!);
		}
		expect(remaining.map((header) => /r=(\d+)/.exec(header)![1])).toEqual([
			'4',
			'3',
			'2',
			'1',
			'0',
		]);
		expect(remaining[0]).toBe('"default";r=4;t=2');

		const limited = await org.trainer.get('/me');
		expect(limited.status).toBe(429);
		expect(limited.body.error.code).toBe('rate_limited');
		clock.advance(500);
		const later = await org.trainer.get('/me');
		expect(later.status).toBe(429);
		expect(later.headers.get('retry-after')).toBe('2'); // 1.5 s left, rounded up
		expect(later.headers.get('ratelimit')).toBe('"default";r=0;t=2');

		clock.advance(1499);
		expect((await org.trainer.get('/me')).status).toBe(429); // 1 ms of the window left
		clock.advance(1);
		const fresh = await org.trainer.get('/me');
		expect(fresh.status).toBe(200);
		expect(fresh.headers.get('ratelimit')).toBe('"default";r=4;t=2');
	});

	it('keeps a separate budget per key', async () => {
		for (let i = 0; i < 6; i++) await org.admin.get('/me');
		expect((await org.admin.get('/me')).status).toBe(429);
		expect((await org.admin.as(org.trainer.key).get('/labs')).status).not.toBe(429);
	});

	it('counts requests without a valid key against the client address', async () => {
		const statuses: number[] = [];
		for (let i = 0; i < 7; i++)
			statuses.push((await org.admin.get('/me', { key: 'tlk_guess' })).status);
		expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
		expect(statuses.slice(5)).toEqual([429, 429]);
	});
});
