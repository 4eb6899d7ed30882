import { randomUUID } from 'node:crypto';
import { demoVersionsOf } from '../../../tooling/api/client';
import { webhookChain, workflowNode } from '../../../tooling/n8n/workflows';
import type { E2e } from '../context';
import { NODE_TYPE } from '../../../tooling/root';

/**
 * An operation of every resource of the Training Lab node, one node after the other in one workflow
 * (each runs once), against the API: what the package's unit tests run through n8n-core, here in the
 * n8n the suite runs.
 */
export function operationScenarios(e2e: E2e): void {
	describe('an operation of every resource, in one workflow', () => {
		it("each node's output is what the API holds", async () => {
			const { client: api, org, api_key } = e2e.org('operations');
			const closing = e2e.org('operationsClosed');
			const versions = await demoVersionsOf(api);
			const credential = {
				id: await e2e.credential('Training Lab operations', api.baseUrl, api_key),
				name: 'Training Lab operations',
			};
			const closingCredential = {
				id: await e2e.credential('Training Lab to close', api.baseUrl, closing.api_key),
				name: 'Training Lab to close',
			};
			const steps: Array<[string, object, typeof credential?]> = [
				['Who am I', { resource: 'identity', operation: 'get' }],
				['Members', { resource: 'member', operation: 'getAll', returnAll: true }],
				[
					'Activity',
					{
						resource: 'activityEvent',
						operation: 'getAll',
						returnAll: false,
						limit: 1,
						simplify: false,
					},
				],
				['Labs', { resource: 'lab', operation: 'getAll', returnAll: true }],
				[
					'Lab versions',
					{
						resource: 'labVersion',
						operation: 'getAll',
						lab: locator(versions.labId),
						returnAll: true,
					},
				],
				[
					'Session',
					{
						resource: 'session',
						operation: 'create',
						title: 'Compatibility',
						labVersion: locator(versions.published),
						capacity: 3,
						additionalFields: {},
					},
				],
				[
					'Join code',
					{
						resource: 'session',
						operation: 'rotateJoinCode',
						session: locator("={{ $('Session').first().json.id }}"),
					},
				],
				[
					'Join',
					{
						resource: 'participant',
						operation: 'join',
						joinCode: '={{ $json.join_code }}',
						email: 'ada@e2e.test',
						name: 'Ada',
					},
				],
				['API keys', { resource: 'apiKey', operation: 'getAll', returnAll: true }],
				['Webhooks', { resource: 'webhook', operation: 'getAll', returnAll: true }],
				['Close', { resource: 'organization', operation: 'close' }, closingCredential],
			];
			const path = randomUUID();
			const nodes = steps.map(([name, parameters, own], index) =>
				workflowNode(name, NODE_TYPE.trainingLab, 200 * (index + 1), {
					typeVersion: 1,
					// Each runs once, and the next runs also after a list that came back empty.
					executeOnce: true,
					alwaysOutputData: true,
					parameters,
					credentials: { trainingLabApi: own ?? credential },
				}),
			);
			const id = await e2e.create({
				name: 'Every resource',
				...webhookChain(path, nodes),
				settings: { executionOrder: 'v1' },
			});
			await e2e.activate(id);
			await e2e.postToWebhook(path);
			const execution = await e2e.firstExecution(id, 60_000);
			const output = (node: string) => e2e.nodeOutput(execution, node);

			expect(output('Who am I')).toEqual([(await api.get('/me')).body]);
			expect(output('Members')).toEqual(
				(await api.getAll(`/orgs/${org.id}/members?limit=200`)).items,
			);
			expect(output('Activity')).toEqual(
				// The newest event now is the participant's joining, which came after the node ran.
				[expect.objectContaining({ id: expect.any(String), type: expect.any(String) })],
			);
			expect(output('Labs')).toEqual((await api.getAll('/labs?limit=200')).items);
			expect(
				output('Lab versions')
					.map((version) => version.id)
					.sort(),
			).toEqual([versions.published, versions.draft].sort());
			const [session] = output('Session');
			expect(session).toMatchObject({ title: 'Compatibility', capacity: 3, state: 'scheduled' });
			expect(output('Join code')).toEqual([{ join_code: expect.stringMatching(/^[A-Z2-9]{8}$/) }]);
			expect(output('Join')).toEqual([
				{
					session_id: session.id,
					participant: expect.objectContaining({ email: 'ada@e2e.test', name: 'Ada' }),
				},
			]);
			expect((await api.get(`/sessions/${session.id}`)).body).toMatchObject({ participants: 1 });
			expect(
				output('API keys')
					.map((key) => key.id)
					.sort(),
			).toEqual(
				(await api.getAll(`/orgs/${org.id}/api-keys?limit=200`)).items
					.map((key: { id: string }) => key.id)
					.sort(),
			);
			// None registered: n8n's Always Output Data gives one empty item.
			expect((await api.getAll(`/orgs/${org.id}/webhooks?limit=200`)).items).toEqual([]);
			expect(output('Webhooks')).toEqual([{}]);
			expect(output('Close')).toEqual([
				expect.objectContaining({ id: closing.org.id, closed_at: expect.any(String) }),
			]);
			expect((await closing.client.get('/me')).status).toBe(401);
		}, 120_000);
	});
}

function locator(value: string) {
	return { __rl: true, mode: 'id', value };
}
