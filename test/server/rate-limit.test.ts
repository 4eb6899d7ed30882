import { createOrg, type TestOrg } from './support/fixtures.ts';
import { startTestServer, type TestServer } from './support/test-server.ts';

let server: TestServer;
let org: TestOrg;
beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_REQUESTS: '5', RATE_LIMIT_WINDOW_S: '2' });
  org = await createOrg(server);
});
afterAll(() => server.stop());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('rate limit', () => {
  it('counts down RateLimit on every response, then answers 429 with Retry-After, and recovers after the window', async () => {
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await org.trainer.get('/me');
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy')).toBe('"default";q=5;w=2');
      remaining.push(response.headers.get('ratelimit')!);
    }
    expect(remaining.map((header) => /r=(\d+)/.exec(header)![1])).toEqual(['4', '3', '2', '1', '0']);
    expect(remaining[0]).toMatch(/^"default";r=4;t=[12]$/);

    const limited = await org.trainer.get('/me');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(2);
    expect(limited.headers.get('ratelimit')).toMatch(/^"default";r=0;t=\d$/);

    await sleep(retryAfter * 1000 + 50);
    expect((await org.trainer.get('/me')).status).toBe(200);
  });

  it('keeps a separate budget per key', async () => {
    for (let i = 0; i < 6; i++) await org.admin.get('/me');
    expect((await org.admin.get('/me')).status).toBe(429);
    expect((await org.admin.as(org.trainer.key).get('/labs')).status).not.toBe(429);
  });

  it('counts requests without a valid key against the client address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await org.admin.get('/me', { key: 'tlk_guess' })).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5)).toEqual([429, 429]);
  });
});
