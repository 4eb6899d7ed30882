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

	it('fails for a revoked key as unauthorized', async () => {
		const { id, key } = (
			await org.admin.post(`/orgs/${org.id}/api-keys`, { name: 'to revoke', role: 'trainer' })
		).body;
		expect((await testTrainingLabCredential({ baseUrl: server.url, apiKey: key })).status).toBe(
			'OK',
		);
		await org.admin.delete(`/orgs/${org.id}/api-keys/${id}`);
		expect(await testTrainingLabCredential({ baseUrl: server.url, apiKey: key })).toEqual({
			status: 'Error',
			message: 'Unauthorized',
		});
	});

	it('tells a wrong URL from a wrong key', async () => {
		const nothingListening = await testTrainingLabCredential({
			baseUrl: 'http://127.0.0.1:9/api/v1',
			apiKey: org.admin.key!,
		});
		expect(nothingListening).toEqual({ status: 'Error', message: 'ECONNREFUSED' });
		const missingVersion = await testTrainingLabCredential({
			baseUrl: server.url.replace('/api/v1', ''),
			apiKey: org.admin.key!,
		});
		expect(missingVersion).toEqual({
			status: 'Error',
			message: 'No Training Lab API at this Base URL: it must end with /api/v1',
		});
		const wrongKey = await testTrainingLabCredential({
			baseUrl: server.url,
			apiKey: 'tlk_not-a-key',
		});
		expect(wrongKey.message).toBe('Unauthorized');
	});
});
