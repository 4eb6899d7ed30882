import { createOrg, type TestOrg } from '../../support/fixtures';
import { LossyProxy } from '../../support/lossy-proxy';
import { startTestServer, type TestServer } from '../../support/test-server';

export interface ServerBehindProxy {
	server: TestServer;
	/** What the nodes talk to: it records every exchange and can lose answers. */
	proxy: LossyProxy;
	org: TestOrg;
}

/**
 * The real server (rate limit out of the way) behind a lossy proxy, with one organization, for the
 * tests of one file: started before them (`use` receives the parts), stopped after, the proxy's
 * record and losses cleared before each.
 */
export function serverBehindProxy(use: (parts: ServerBehindProxy) => void): void {
	let parts: ServerBehindProxy;
	beforeAll(async () => {
		const server = await startTestServer({ RATE_LIMIT_REQUESTS: '100000' });
		const proxy = await LossyProxy.start(server.url);
		parts = { server, proxy, org: await createOrg(server) };
		use(parts);
	});
	afterAll(async () => {
		await parts?.proxy.stop();
		await parts?.server.stop();
	});
	beforeEach(() => {
		parts.proxy.exchanges.length = 0;
		parts.proxy.losses = 0;
	});
}

/** How many sessions of the server are titled `title`. */
export function sessionsTitled(server: TestServer, title: string): number {
	return (
		server.db.prepare('SELECT count(*) AS n FROM sessions WHERE title = ?').get(title) as {
			n: number;
		}
	).n;
}
