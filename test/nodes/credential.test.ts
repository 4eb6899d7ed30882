import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestOrg, serverWithOrg } from '../server/support/fixtures';
import { type TestServer } from '../server/support/test-server';
import { testTrainingLabCredential } from './support/credential-test';

let server: TestServer;
let org: TestOrg;
beforeAll(async () => {
	({ server, org } = await serverWithOrg());
});
afterAll(() => server.stop());

describe('Training Lab API credential test (GET /me)', () => {
	it('passes for a good key, also with a trailing slash on the base URL', async () => {
		expect(
			await testTrainingLabCredential({ baseUrl: server.url, apiKey: org.trainer.key! }),
		).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(
			(await testTrainingLabCredential({ baseUrl: `${server.url}/`, apiKey: org.admin.key! }))
				.status,
		).toBe('OK');
	});

	const REFUSED =
		'The API key was refused: it is wrong, revoked, or its member was removed. Create a new key (Training Lab node → API Key → Create) and paste it here.';

	it('fails for a revoked or unknown key with a message saying what to do', async () => {
		const { id, key } = (
			await org.admin.post(`/orgs/${org.id}/api-keys`, { name: 'to revoke', role: 'trainer' })
		).body;
		expect((await testTrainingLabCredential({ baseUrl: server.url, apiKey: key })).status).toBe(
			'OK',
		);
		await org.admin.delete(`/orgs/${org.id}/api-keys/${id}`);
		expect(await testTrainingLabCredential({ baseUrl: server.url, apiKey: key })).toEqual({
			status: 'Error',
			message: REFUSED,
		});
		expect(
			await testTrainingLabCredential({ baseUrl: server.url, apiKey: 'tlk_not-a-key' }),
		).toEqual({ status: 'Error', message: REFUSED });
	});

	it('tells a wrong address from a wrong key', async () => {
		const nothingListening = await testTrainingLabCredential({
			baseUrl: 'http://127.0.0.1:9/api/v1',
			apiKey: org.admin.key!,
		});
		// n8n words connection failures itself, by their code.
		expect(nothingListening).toEqual({ status: 'Error', message: 'ECONNREFUSED' });
		const missingVersion = await testTrainingLabCredential({
			baseUrl: server.url.replace('/api/v1', ''),
			apiKey: org.admin.key!,
		});
		expect(missingVersion).toEqual({
			status: 'Error',
			message: expect.stringMatching(
				/^Nothing answers as the Training Lab API at this Base URL \(GET \/me: 404\)\. Check host and path/,
			),
		});
	});

	describe('against a server that is not the Training Lab API', () => {
		let other: Server;
		let otherUrl: string;
		beforeAll(async () => {
			// Another service on /api/v1: answers /me with its own JSON, everything else with 404.
			other = createServer((request, response) => {
				response.setHeader('content-type', 'application/json');
				if (request.url === '/api/v1/me') response.end(JSON.stringify({ login: 'someone' }));
				else response.writeHead(404).end('{}');
			});
			await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
			otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
		});
		afterAll(() => new Promise<void>((resolve) => other.close(() => resolve())));

		it('says the answer is not the Training Lab API, even with a URL ending in /api/v1', async () => {
			expect(
				await testTrainingLabCredential({ baseUrl: `${otherUrl}/api/v1`, apiKey: org.admin.key! }),
			).toEqual({
				status: 'Error',
				message:
					'This server answered GET /me, but not as the Training Lab API does (no organisation in the answer). Check the Base URL.',
			});
		});
	});
});
