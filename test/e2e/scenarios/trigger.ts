import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { example } from '../../../tooling/n8n/workflows';
import type { E2e } from '../context';
import { sideBySide } from '../side-by-side';
import { NODE_TYPE, PACKAGE_NAME } from '../../../tooling/root';

/** The Training Lab Trigger: registration, deliveries, forgeries, organization closure, a burst, a trainer key, the node types. */
export function triggerScenarios(e2e: E2e): void {
	describe('the trigger (examples/react-to-member-removal.json)', () => {
		let workflowId: string;
		let webhookUrl: string;

		beforeAll(async () => {
			const credentialId = await e2e.credentialOf('people');
			const { id, workflow } = await e2e.importExample('react-to-member-removal', {
				YOUR_CREDENTIAL_ID: credentialId,
			});
			workflowId = id;
			webhookUrl = e2e.webhookUrlOf(workflow);
			await e2e.activateTrigger(workflowId, 'people', webhookUrl);
		}, 120_000);

		it('registered exactly one endpoint for its URL with its events', async () => {
			expect(await e2e.endpointsOf('people')).toEqual([
				expect.objectContaining({ url: webhookUrl, event_types: ['member.removed'] }),
			]);
		});

		it("removing a member through the API starts exactly one execution carrying the member's id and e-mail", async () => {
			const members = (
				await e2e.org('people').client.get(`/orgs/${e2e.org('people').org.id}/members`)
			).body;
			const trainer = members.find((m: { role: string }) => m.role === 'trainer');
			expect(
				(
					await e2e
						.org('people')
						.client.delete(`/orgs/${e2e.org('people').org.id}/members/${trainer.user_id}`)
				).status,
			).toBe(204);
			const execution = await e2e.firstExecution(workflowId, 30_000);
			expect(e2e.nodeOutput(execution, 'Offboarding notice')).toEqual([
				expect.objectContaining({
					user_id: trainer.user_id,
					email: trainer.email,
					role: 'trainer',
					removed_by: 'people@e2e.test',
				}),
			]);
			expect(await e2e.deliveriesSettled('people')).toEqual([
				expect.objectContaining({ attempts: 1 }),
			]);
			expect(await e2e.client.executions(workflowId)).toHaveLength(1);
		});

		it('a forged delivery (no or a wrong signature) gets 401 and starts no execution', async () => {
			const before = (await e2e.client.executions(workflowId)).length;
			const body = JSON.stringify({
				id: 'forged',
				type: 'member.removed',
				occurred_at: new Date().toISOString(),
				org_id: e2e.org('people').org.id,
				actor: 'mallory@x.test',
				data: {},
			});
			const unsigned = await fetch(webhookUrl, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body,
			});
			expect(unsigned.status).toBe(401);
			const timestamp = Math.floor(Date.now() / 1000);
			// Signed as a Standard Webhooks sender would, with a secret that is not the endpoint's.
			const wrong = new Webhook(Buffer.alloc(32, 7).toString('base64')).sign(
				'forged',
				new Date(timestamp * 1000),
				body,
			);
			const forged = await fetch(webhookUrl, {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					'webhook-id': 'forged',
					'webhook-timestamp': String(timestamp),
					'webhook-signature': wrong,
				},
				body,
			});
			expect(forged.status).toBe(401);
			// A real, signed event after the forged ones: once its execution is there, the forged ones added none.
			const members = (
				await e2e.org('people').client.get(`/orgs/${e2e.org('people').org.id}/members`)
			).body;
			const sentinel = members.find((m: { role: string }) => m.role === 'trainer');
			await e2e
				.org('people')
				.client.delete(`/orgs/${e2e.org('people').org.id}/members/${sentinel.user_id}`);
			const executions = await e2e.executions(
				workflowId,
				(all) => all.length > before && all[0].status === 'success',
				"the sentinel's execution",
				30_000,
			);
			expect(executions).toHaveLength(before + 1);
			expect(e2e.nodeOutput(executions[0], 'Offboarding notice')).toEqual([
				expect.objectContaining({ user_id: sentinel.user_id }),
			]);
		});

		it('deactivating holds the endpoint; activating again, twice in a row, releases that one and makes no other', async () => {
			const [registered] = await e2e.endpointsOf('people');
			await e2e.deactivateTrigger(workflowId, 'people', webhookUrl);
			await e2e.activate(workflowId);
			await e2e.activateTrigger(workflowId, 'people', webhookUrl);
			expect(await e2e.endpointsOf('people')).toEqual([
				expect.objectContaining({ id: registered.id, url: webhookUrl, held_since: null }),
			]);
			await e2e.deactivateTrigger(workflowId, 'people', webhookUrl);
			expect(await e2e.endpointsOf('people')).toEqual([
				expect.objectContaining({ id: registered.id, held_since: expect.any(String) }),
			]);
		});
	});

	if (e2e.scope === 'full')
		describe('the trigger on organization closure (examples/react-to-organization-closure.json)', () => {
			it('closing the organization starts exactly one execution carrying the closure', async () => {
				const credentialId = await e2e.credentialOf('closing');
				const { id, workflow } = await e2e.importExample('react-to-organization-closure', {
					YOUR_CREDENTIAL_ID: credentialId,
				});
				const webhookUrl = e2e.webhookUrlOf(workflow);
				await e2e.activateTrigger(id, 'closing', webhookUrl);

				const closed = (
					await e2e.org('closing').client.post(`/orgs/${e2e.org('closing').org.id}/close`)
				).body;
				const execution = await e2e.firstExecution(id, 30_000);
				expect(e2e.nodeOutput(execution, 'Closure record')).toEqual([
					{
						org_id: e2e.org('closing').org.id,
						name: 'E2E closing',
						slug: 'e2e-closing',
						closed_at: closed.closed_at,
						closed_by: 'closing@e2e.test',
					},
				]);
				expect(await e2e.deliveriesSettled('closing')).toEqual([
					expect.objectContaining({ attempts: 1 }),
				]);
				expect(await e2e.client.executions(id)).toHaveLength(1);
			}, 120_000);
		});

	if (e2e.scope === 'full')
		describe('a burst of deliveries', () => {
			it('20 members removed at once start 20 executions, one per member, spread over the executors', async () => {
				const { client: api, org } = e2e.org('burst');
				const id = await e2e.memberRemovalTrigger('burst');
				const members = await e2e.addTrainers('burst', 20);
				await Promise.all(
					members.map((member) => api.delete(`/orgs/${org.id}/members/${member.user_id}`)),
				);
				const executions = await e2e.executions(
					id,
					(all) => all.length >= 20 && all.every((e) => e.status === 'success'),
					'an execution per removal',
					120_000,
				);
				expect(await e2e.deliveriesSettled('burst')).toHaveLength(20);
				expect(await e2e.client.executions(id)).toHaveLength(20);
				const removed = executions.flatMap((execution) =>
					e2e.nodeOutput(execution, 'Offboarding notice').map((item) => item.user_id),
				);
				expect(removed.sort()).toEqual(members.map((member) => member.user_id).sort());
				expect(e2e.noticesSent('burst')).toEqual(members.map((member) => member.user_id).sort());
				expect(new Set(executions.map((execution) => e2e.executedBy(execution.id)))).toEqual(
					new Set(e2e.topology.executors),
				);
			}, 180_000);
		});

	describe('a trainer key at activation', () => {
		let trainerCredential: string;
		beforeAll(async () => {
			const { client: api, org } = e2e.org('trainerKey');
			const trainerKey = (
				await api.post(`/orgs/${org.id}/api-keys`, {
					name: 'trainer at activation',
					role: 'trainer',
				})
			).body.key;
			trainerCredential = await e2e.credential('Training Lab trainer key', api.baseUrl, trainerKey);
		});

		// n8n 2.41 retries a failed publication for about 15 s before it reports it: side by side.
		sideBySide(
			e2e,
			{
				'fails the Activity Trigger with the message naming the admin key it needs': async () => {
					const id = await e2e.create(
						e2e.activityWorkflow('Poll with a trainer key', trainerCredential, ['member.removed']),
					);
					try {
						expect(await e2e.client.activationFailure(id)).toContain(
							"The activity log needs an admin API key; this credential's key acts as trainer",
						);
						expect(await e2e.client.executions(id)).toEqual([]);
					} finally {
						await e2e.deactivate(id);
					}
				},
				'fails the Training Lab Trigger with that message and leaves no endpoint behind':
					async () => {
						const workflow = example('react-to-member-removal', {
							YOUR_CREDENTIAL_ID: trainerCredential,
						});
						workflow.nodes[0].webhookId = randomUUID(); // its own path, next to the active example
						const id = await e2e.create(workflow);
						try {
							expect(await e2e.client.activationFailure(id)).toContain(
								"Registering this trigger's webhook endpoint needs an admin API key; this credential's key acts as trainer",
							);
							const webhookUrl = e2e.webhookUrlOf(workflow);
							expect(
								(await e2e.endpointsOf('trainerKey')).map((endpoint) => endpoint.url),
							).not.toContain(webhookUrl);
						} finally {
							await e2e.deactivate(id);
						}
					},
			},
			120_000,
		);
	});

	describe('the node types n8n loaded from the package', () => {
		it('offers the action node, both triggers, and the action node as an AI tool (usableAsTool)', async () => {
			const types =
				await e2e.client.editorJson<
					Array<{ name: string; displayName: string; properties: Array<{ name: string }> }>
				>('/types/nodes.json');
			const ours = types.filter((type) => type.name.startsWith(`${PACKAGE_NAME}.`));
			expect(ours.map((type) => type.name).sort()).toEqual(
				[
					NODE_TYPE.trainingLab,
					NODE_TYPE.trainingLabActivityTrigger,
					NODE_TYPE.trainingLabTool,
					NODE_TYPE.trainingLabTrigger,
				].sort(),
			);
			const tool = ours.find((type) => type.name === NODE_TYPE.trainingLabTool)!;
			const node = ours.find((type) => type.name === NODE_TYPE.trainingLab)!;
			// The tool variant is the action node with every resource and operation.
			for (const property of ['resource', 'operation'])
				expect(tool.properties.map((p) => p.name)).toContain(property);
			expect(tool.properties.filter((p) => p.name === 'operation')).toHaveLength(
				node.properties.filter((p) => p.name === 'operation').length,
			);
		});
	});
}
