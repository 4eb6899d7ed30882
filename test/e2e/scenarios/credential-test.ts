import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { E2e } from '../context';

/** The credential test through n8n's own endpoint. */
export function credentialTestScenarios(e2e: E2e): void {
	describe("the credential test through n8n's own endpoint", () => {
		// n8n tests a stored credential (by id) with the data of the form.
		async function test(
			apiKey: string,
			baseUrl = e2e.api.url,
		): Promise<{ status: string; message: string }> {
			const id = await e2e.credential(`Training Lab ${Math.random()}`, baseUrl, apiKey);
			const data = { baseUrl, apiKey };
			return (await e2e.client.rest('POST', '/rest/credentials/test', {
				credentials: { id, name: 'Training Lab', type: 'trainingLabApi', data },
			})) as { status: string; message: string };
		}
		const REFUSED =
			'The API key was refused: it is wrong, revoked, or its member was removed. Create a new key (Training Lab node → API Key → Create) and paste it here.';

		it('passes for a good key, also with a trailing slash; a revoked or unknown key gets a message saying what to do', async () => {
			const { id, key } = (
				await e2e
					.org('credentials')
					.client.post(`/orgs/${e2e.org('credentials').org.id}/api-keys`, {
						name: 'for n8n',
						role: 'trainer',
					})
			).body;
			expect(await test(key)).toEqual({ status: 'OK', message: 'Connection successful!' });
			expect(await test(key, `${e2e.api.url}/`)).toEqual({
				status: 'OK',
				message: 'Connection successful!',
			});
			await e2e
				.org('credentials')
				.client.delete(`/orgs/${e2e.org('credentials').org.id}/api-keys/${id}`);
			expect(await test(key)).toEqual({ status: 'Error', message: REFUSED });
			expect(await test('tlk_not-a-key')).toEqual({ status: 'Error', message: REFUSED });
		});

		it('tells a wrong address from a wrong key, and another service from the Training Lab API', async () => {
			// n8n words a connection failure itself: 2.x gives its code, 1.x a sentence.
			expect(await test(e2e.org('credentials').api_key, 'http://127.0.0.1:9/api/v1')).toEqual({
				status: 'Error',
				message: e2e.traits.connectionRefused,
			});
			expect(
				await test(e2e.org('credentials').api_key, e2e.api.url.replace('/api/v1', '')),
			).toEqual({
				status: 'Error',
				message: expect.stringMatching(
					/^Nothing answers as the Training Lab API at this Base URL \(GET \/me: 404\)\. Check host and path/,
				),
			});
			// Another service on /api/v1: answers /me with its own JSON, everything else with 404.
			const other = createServer((request, response) => {
				response.setHeader('content-type', 'application/json');
				if (request.url === '/api/v1/me') response.end(JSON.stringify({ login: 'someone' }));
				else response.writeHead(404).end('{}');
			});
			await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
			try {
				const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
				expect(await test(e2e.org('credentials').api_key, `${otherUrl}/api/v1`)).toEqual({
					status: 'Error',
					message:
						'This server answered GET /me, but not as the Training Lab API does (no organization in the answer). Check the Base URL.',
				});
			} finally {
				await new Promise<void>((resolve) => other.close(() => resolve()));
			}
		});
	});
}
