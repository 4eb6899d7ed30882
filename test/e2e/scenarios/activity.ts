import { randomUUID } from 'node:crypto';
import { eventually } from '../../../tooling/eventually';
import { patiently } from '../../../tooling/n8n/processes';
import type { E2e } from '../context';

/** The polling workflow, active from the start of the suite (see startPollingEarly). */
let pollingWorkflowId: string;

/**
 * n8n polls at most once a minute: the polling scenario's workflow is activated when the suite starts
 * (its beforeAll calls this), so that its first poll, which records where the activity log stands,
 * happens while other scenarios run.
 */
export async function startPollingEarly(e2e: E2e): Promise<void> {
	const credentialId = await e2e.credentialOf('polling');
	pollingWorkflowId = await e2e.create(
		e2e.activityWorkflow('Poll the activity log', credentialId, ['member.removed']),
	);
	await e2e.client.activate(pollingWorkflowId);
}

/** The Activity Trigger polling in an active workflow. */
export function activityScenarios(e2e: E2e): void {
	describe('the Activity Trigger (polling) in an active workflow', () => {
		afterAll(() => e2e.deactivate(pollingWorkflowId));

		it(
			'starts executions whose items are every member.removed event of the test, exactly once',
			async () => {
				const { client: api, org } = e2e.org('polling');
				// Activated when the suite started (pollingWorkflowId). The first poll records where the
				// log stands; n8n keeps that in the workflow's static data.
				const workflow = { id: pollingWorkflowId };
				await eventually(
					async () => {
						const stored = await e2e.client.api<{
							staticData?: Record<string, { lastEventId?: string }>;
						}>('GET', `/workflows/${workflow.id}`);
						return stored.staticData?.['node:Activity']?.lastEventId !== undefined;
					},
					'the first poll to record its position',
					patiently(150_000, e2e.n8n.log),
				);

				const removeMembers = async (count: number) => {
					const ids: string[] = [];
					for (let i = 0; i < count; i++) {
						const member = (
							await api.post(`/orgs/${org.id}/members`, {
								email: `leaver-${randomUUID()}@e2e.test`,
								name: 'Leaver',
								role: 'trainer',
							})
						).body;
						expect((await api.delete(`/orgs/${org.id}/members/${member.user_id}`)).status).toBe(
							204,
						);
						ids.push(member.user_id);
					}
					await api.post('/labs', { name: `Not watched ${randomUUID()}`, tier: 'vm' });
					return ids;
				};
				const removedEvents = async () =>
					(
						(await api.get(`/orgs/${org.id}/events?limit=200`)).body as Array<{
							id: string;
							type: string;
						}>
					)
						.filter((event) => event.type === 'member.removed')
						.reverse();
				/** Every item the workflow's executions emitted, oldest execution first (a poll may split a batch). */
				const emitted = async () =>
					(await e2e.client.executions(workflow.id))
						.filter((execution) => execution.status === 'success')
						.reverse()
						.flatMap((execution) => e2e.nodeOutput(execution, 'Activity'));
				const allEmitted = (userIds: string[]) =>
					eventually(
						async () => {
							const items = await emitted();
							const seen = new Set(items.map((item) => item.data.user_id));
							return userIds.every((id) => seen.has(id)) && items;
						},
						'executions carrying every removal',
						patiently(150_000, e2e.n8n.log),
					);

				const executors = async () =>
					new Set(
						(await e2e.client.executions(workflow.id)).map((execution) =>
							e2e.executedBy(execution.id),
						),
					);

				const first = await removeMembers(3);
				const afterFirst = await allEmitted(first);
				expect(afterFirst.map((item) => item.data.user_id)).toEqual(first);
				expect(afterFirst.map((item) => item.id)).toEqual(
					(await removedEvents()).map((event) => event.id),
				);

				// One more removal, a poll later: it arrives, and nothing before it is emitted again.
				const sentinel = await removeMembers(1);
				const afterSentinel = await allEmitted(sentinel);
				expect(afterSentinel.map((item) => item.data.user_id)).toEqual([...first, ...sentinel]);
				expect(afterSentinel.map((item) => item.id)).toEqual(
					(await removedEvents()).map((event) => event.id),
				);
				for (const executor of await executors())
					expect(e2e.topology.executors).toContain(executor);
			},
			8 * 60_000,
		);
	});
}
