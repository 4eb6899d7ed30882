import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { once } from 'node:events';
import { eventually } from '../../tooling/eventually';

// What the tests themselves stand on.
// - Their fetch (test/support/short-keep-alive.ts here, no-keep-alive.ts in the end-to-end
//   suites): a request sent on a connection the server is closing fails with "other side
//   closed", so the tests' fetch must not keep a connection as long as the servers do.
// - `eventually`: a wait that times out says what it last waited out.

/** A server that keeps an idle connection for a minute, longer than any test waits. */
async function patientServer(): Promise<{ server: Server; url: string; sockets: Socket[] }> {
	const sockets: Socket[] = [];
	const server = createServer({ keepAliveTimeout: 60_000 }, (_request, response) =>
		response.end('ok'),
	);
	server.on('connection', (socket: Socket) => sockets.push(socket));
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	const { port } = server.address() as { port: number };
	return { server, url: `http://127.0.0.1:${port}/`, sockets };
}

describe("the tests' fetch", () => {
	let patient: Awaited<ReturnType<typeof patientServer>>;
	beforeEach(async () => {
		patient = await patientServer();
	});
	afterEach(() => {
		patient.server.closeAllConnections();
		patient.server.close();
	});

	it('closes an idle connection itself, long before a server would', async () => {
		expect(await (await fetch(patient.url)).text()).toBe('ok');
		const [socket] = patient.sockets;
		// Only fetch can end it: the server keeps it for a minute, past this test's timeout.
		if (!socket.closed) await once(socket, 'close');
		expect(patient.sockets.length).toBe(1);
	});

	it('in the end-to-end suites, opens a connection of its own for each request', async () => {
		await import('../support/no-keep-alive');
		for (let request = 0; request < 3; request++)
			expect(await (await fetch(patient.url, { method: 'POST', body: 'x' })).text()).toBe('ok');
		expect(patient.sockets.length).toBe(3);
	});
});

describe('eventually', () => {
	it('says, when time is up, why the last try failed, with the cause fetch keeps its reason in', async () => {
		const refused = new TypeError('fetch failed', {
			cause: new Error('connect ECONNREFUSED 127.0.0.1:9'),
		});
		await expect(
			eventually(
				() => {
					throw refused;
				},
				'a server that never starts',
				{ timeoutMs: 0, retryErrors: () => true, explain: () => 'its log' },
			),
		).rejects.toThrow(
			'Timed out after 0 ms waiting for a server that never starts\n' +
				'the last try failed: fetch failed (connect ECONNREFUSED 127.0.0.1:9)\nits log',
		);
	});
});
