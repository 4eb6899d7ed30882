import { randomUUID } from 'node:crypto';
import { eventually } from '../../../tooling/eventually';
import { demoVersionsOf } from '../../../tooling/api/client';
import { patiently } from '../../../tooling/n8n/processes';
import { createSessionNode, workflowNode } from '../../../tooling/n8n/workflows';
import type { E2e } from '../context';
import { sideBySide } from '../side-by-side';

/**
 * The polling workflows, active from the start of the suite (see startPollingEarly), by
 * organization: each scenario has its own, so that they run side by side.
 */
const early = new Map<string, string>();
const SIDE_BY_SIDE = ['polling', 'pollSaves', 'pollInactive'] as const;

/** The crash scenario's: n8n is killed while one of its executions waits. */
const crashedWhilePolled = (e2e: E2e) => e2e.scope === 'full' && !e2e.topology.queue;

/**
 * n8n polls at most once a minute: the polling scenarios' workflows are activated when the suite
 * starts (its beforeAll calls this), so that their first poll, which records where the activity log
 * stands, happens while other scenarios run.
 */
export async function startPollingEarly(e2e: E2e): Promise<void> {
	const workflows: Array<[string, object]> = [
		[
			'polling',
			e2e.activityWorkflow('Poll the activity log', await e2e.credentialOf('polling'), [
				'member.removed',
			]),
		],
		[
			'pollSaves',
			slowWorkflowWithNote(e2e, 'Saved while polled', await e2e.credentialOf('pollSaves')),
		],
		[
			'pollInactive',
			slowWorkflowWithNote(
				e2e,
				'Inactive while events happen',
				await e2e.credentialOf('pollInactive'),
			),
		],
	];
	if (crashedWhilePolled(e2e)) workflows.push(['pollCrash', await followUpWorkflow(e2e)]);
	for (const [org, workflow] of workflows) {
		const id = await e2e.create(workflow);
		await e2e.client.activate(id);
		early.set(org, id);
	}
}

/**
 * Activity Trigger (member.removed, every minute) → a welcome session → a 20 s wait → a follow-up
 * session, each titled with the removed member's e-mail.
 */
async function followUpWorkflow(e2e: E2e) {
	const org = 'pollCrash';
	const credential = { id: await e2e.credentialOf(org), name: 'Training Lab pollCrash' };
	const { published } = await demoVersionsOf(e2e.org(org).client);
	const workflow = e2e.activityWorkflow('Follow up removals', credential.id, ['member.removed']);
	const session = (name: string, x: number) =>
		createSessionNode(x, {
			name,
			title: `={{ "${name} " + $('Activity').item.json.data.email }}`,
			labVersion: published,
			capacity: 5,
			credential,
		});
	return {
		...workflow,
		nodes: [
			...workflow.nodes,
			session('Welcome', 200),
			workflowNode('Pause', 'n8n-nodes-base.wait', 400, {
				typeVersion: 1.1,
				parameters: { resume: 'timeInterval', amount: 20, unit: 'seconds' },
			}),
			session('Follow-up', 600),
		],
		connections: {
			Activity: { main: [[{ node: 'Welcome', type: 'main', index: 0 }]] },
			Welcome: { main: [[{ node: 'Pause', type: 'main', index: 0 }]] },
			Pause: { main: [[{ node: 'Follow-up', type: 'main', index: 0 }]] },
		},
	};
}

interface Consumer {
	id: string;
	open_batches: number;
	last_read_at: string;
}

/** The event consumer in the API of a workflow's Activity Trigger (its description names the workflow). */
async function consumerOf(
	e2e: E2e,
	org: string,
	workflowId: string,
): Promise<Consumer | undefined> {
	const { client, org: of } = e2e.org(org);
	const consumers = (await client.getAll(`/orgs/${of.id}/event-consumers`)).items as Array<
		Consumer & { description: string }
	>;
	return consumers.find((consumer) => consumer.description.includes(`(${workflowId})`));
}

/** Waits until the first poll of a workflow's Activity Trigger has had the API record where the log stands. */
async function firstPoll(e2e: E2e, org: string, workflowId: string): Promise<void> {
	await eventually(
		async () => (await consumerOf(e2e, org, workflowId)) !== undefined,
		'the first poll to have the API record its position',
		patiently(150_000, e2e.n8n.log),
	);
}

/**
 * Waits until every batch of the workflow's trigger is done (each execution ended, and the trigger
 * told the API) and the trigger has polled again since: a batch run twice would have been started by now.
 */
async function settledAndPolledAgain(e2e: E2e, org: string, workflowId: string): Promise<void> {
	const done = await eventually(
		async () => {
			const consumer = await consumerOf(e2e, org, workflowId);
			return consumer?.open_batches === 0 && consumer;
		},
		'every batch of the trigger to be done',
		patiently(150_000, e2e.n8n.log),
	);
	// Deactivating and activating polls at once, on every n8n (where a minute's wait would do too).
	await e2e.deactivate(workflowId);
	await e2e.client.activate(workflowId);
	await eventually(
		async () => (await consumerOf(e2e, org, workflowId))!.last_read_at > done.last_read_at,
		'the trigger to poll again',
		patiently(150_000, e2e.n8n.log),
	);
}

/** Removes `count` new trainers of the organization `org`, one after another; their user ids, in order. */
async function removeMembers(e2e: E2e, org: string, count: number): Promise<string[]> {
	const { client: api, org: of } = e2e.org(org);
	const ids: string[] = [];
	for (let i = 0; i < count; i++) {
		const member = (
			await api.post(`/orgs/${of.id}/members`, {
				email: `leaver-${randomUUID()}@e2e.test`,
				name: 'Leaver',
				role: 'trainer',
			})
		).body;
		expect((await api.delete(`/orgs/${of.id}/members/${member.user_id}`)).status).toBe(204);
		ids.push(member.user_id);
	}
	return ids;
}

/** How often each removed member's event started an execution of the workflow, by outcome; by user id. */
async function runsPerMember(e2e: E2e, workflowId: string): Promise<Map<string, string[]>> {
	const runs = new Map<string, string[]>();
	for (const execution of await e2e.client.executions(workflowId))
		for (const item of e2e.nodeOutput(execution, 'Activity'))
			runs.set(item.data.user_id, [...(runs.get(item.data.user_id) ?? []), execution.status]);
	return runs;
}

/**
 * Activity Trigger (member.removed, every minute) → a 3 s wait, and a sticky note: what a person
 * edits between saves.
 */
function slowWorkflowWithNote(e2e: E2e, name: string, credentialId: string) {
	const workflow = e2e.activityWorkflow(name, credentialId, ['member.removed']);
	return {
		...workflow,
		nodes: [
			...workflow.nodes,
			workflowNode('Pause', 'n8n-nodes-base.wait', 200, {
				typeVersion: 1.1,
				parameters: { resume: 'timeInterval', amount: 3, unit: 'seconds' },
			}),
			workflowNode('Note', 'n8n-nodes-base.stickyNote', 400, {
				typeVersion: 1,
				parameters: { content: 'Offboarding: edited 0 times' },
			}),
		],
		connections: { Activity: { main: [[{ node: 'Pause', type: 'main', index: 0 }]] } },
	};
}

/**
 * A member.removed event of the test reaches the workflow `polling` activated early: 3 removals and
 * an unwatched change, then one more a poll later; each is emitted once, in the log's order.
 */
async function everyRemovalOnce(e2e: E2e): Promise<void> {
	const org = 'polling';
	const { client: api, org: of } = e2e.org(org);
	const workflowId = early.get(org)!;
	// The first poll records where the log stands; the API keeps that position for the trigger.
	await firstPoll(e2e, org, workflowId);

	const removedWithNoise = async (count: number) => {
		const ids = await removeMembers(e2e, org, count);
		await api.post('/labs', { name: `Not watched ${randomUUID()}`, tier: 'vm' });
		return ids;
	};
	const removedEvents = async () =>
		((await api.get(`/orgs/${of.id}/events?limit=200`)).body as Array<{ id: string; type: string }>)
			.filter((event) => event.type === 'member.removed')
			.reverse();
	/** Every item the workflow's executions emitted, oldest execution first (a poll may split a batch). */
	const emitted = async () =>
		(await e2e.client.executions(workflowId))
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

	const first = await removedWithNoise(3);
	const afterFirst = await allEmitted(first);
	expect(afterFirst.map((item) => item.data.user_id)).toEqual(first);
	expect(afterFirst.map((item) => item.id)).toEqual(
		(await removedEvents()).map((event) => event.id),
	);

	// One more removal, a poll later: it arrives, and nothing before it is emitted again.
	const sentinel = await removedWithNoise(1);
	const afterSentinel = await allEmitted(sentinel);
	expect(afterSentinel.map((item) => item.data.user_id)).toEqual([...first, ...sentinel]);
	expect(afterSentinel.map((item) => item.id)).toEqual(
		(await removedEvents()).map((event) => event.id),
	);
	for (const execution of await e2e.client.executions(workflowId))
		expect(e2e.topology.executors).toContain(e2e.executedBy(execution.id));
}

/** 10 removals while the workflow `pollSaves` is saved (and on 2.x published) 5 times, a note edited. */
async function removalsDuringFiveSaves(e2e: E2e): Promise<void> {
	const org = 'pollSaves';
	const workflowId = early.get(org)!;
	await firstPoll(e2e, org, workflowId);
	const removed: string[] = [];
	for (let save = 1; save <= 5; save++) {
		removed.push(...(await removeMembers(e2e, org, 2)));
		await e2e.client.saveAndPublish(workflowId, (workflow) => {
			workflow.nodes.find((node: any) => node.name === 'Note').parameters.content =
				`Offboarding: edited ${save} times`;
		});
	}
	await eventually(
		async () => {
			const runs = await runsPerMember(e2e, workflowId);
			return removed.every((member) => runs.get(member)?.includes('success'));
		},
		'an execution of every removal to have ended',
		patiently(150_000, e2e.n8n.log),
	);
	await settledAndPolledAgain(e2e, org, workflowId);
	const runs = await runsPerMember(e2e, workflowId);
	expect(removed.map((member) => [member, runs.get(member)])).toEqual(
		removed.map((member) => [member, ['success']]),
	);
	console.log(
		`n8n ${e2e.n8n.version}: 10 removals during 5 saves of an Activity Trigger workflow: each ran once, ` +
			`in ${new Set((await e2e.client.executions(workflowId)).map((e) => e.id)).size} execution(s)`,
	);
}

/** The workflow `pollInactive` deactivated, 3 removals, activated again. */
async function removalsWhileInactive(e2e: E2e): Promise<void> {
	const org = 'pollInactive';
	const workflowId = early.get(org)!;
	await firstPoll(e2e, org, workflowId);
	await e2e.deactivate(workflowId);
	const removed = await removeMembers(e2e, org, 3);
	await e2e.client.activate(workflowId);
	await eventually(
		async () => {
			const all = await e2e.client.executions(workflowId);
			return all.length > 0 && all.every((e) => e.status === 'success');
		},
		'the execution of the 3 removals',
		patiently(150_000, e2e.n8n.log),
	);
	await settledAndPolledAgain(e2e, org, workflowId);
	const runs = await runsPerMember(e2e, workflowId);
	expect([...runs]).toEqual(removed.map((member) => [member, ['success']]));
}

/**
 * The Activity Trigger polling in an active workflow, and what a person does to it: the scenarios
 * wait on n8n's minute polls, so they run side by side, each with its own organization and workflow.
 */
export function activityScenarios(e2e: E2e): void {
	describe('the Activity Trigger (polling) in an active workflow, and what a person does to it', () => {
		afterAll(async () => {
			for (const org of SIDE_BY_SIDE) await e2e.deactivate(early.get(org)!);
		});
		sideBySide(
			e2e,
			{
				'starts executions whose items are every member.removed event of the test, exactly once':
					() => everyRemovalOnce(e2e),
				'10 events during 5 saves in a row (a note edited): each runs to the end exactly once':
					() => removalsDuringFiveSaves(e2e),
				'deactivate, 3 events, activate: the 3 run once after activation': () =>
					removalsWhileInactive(e2e),
			},
			8 * 60_000,
		);
	});

	if (crashedWhilePolled(e2e))
		describe('n8n killed while an execution the Activity Trigger started runs', () => {
			afterAll(() => e2e.deactivate(early.get('pollCrash')!));

			it(
				'its events run again by themselves once n8n is back; each Training Lab session is still created once',
				async () => {
					const org = 'pollCrash';
					const { client: api, org: of } = e2e.org(org);
					await firstPoll(e2e, org, early.get('pollCrash')!);
					const members = await e2e.addTrainers(org, 3);
					for (const member of members)
						expect((await api.delete(`/orgs/${of.id}/members/${member.user_id}`)).status).toBe(204);
					const titles = async () =>
						((await api.getAll('/sessions')).items as Array<{ title: string }>).map(
							(session) => session.title,
						);
					const expected = (prefix: string) =>
						members.map((member) => `${prefix} ${member.email}`).sort();
					const created = async (prefix: string) =>
						(await titles()).filter((title) => title.startsWith(`${prefix} `)).sort();
					// Killed while the poll's execution waits, its welcome sessions created.
					await eventually(
						async () => (await created('Welcome')).length === members.length,
						'the polled execution to create the welcome sessions',
						patiently(150_000, e2e.n8n.log),
					);
					const [crashed] = await e2e.client.runningExecutions(early.get('pollCrash')!);
					expect(crashed).toBeDefined();
					await e2e.n8n.kill();
					const killed = Date.now();
					await e2e.n8n.restart();

					await eventually(
						async () => (await created('Follow-up')).length >= members.length,
						'a follow-up session per removal',
						patiently(240_000, e2e.n8n.log),
					);
					expect(await created('Welcome')).toEqual(expected('Welcome'));
					expect(await created('Follow-up')).toEqual(expected('Follow-up'));
					const executions = await e2e.client.executions(early.get('pollCrash')!);
					expect(executions.find((e) => e.id === crashed.id)?.status).toBe('crashed');
					const ranAgain = executions.filter((e) => e.status === 'success');
					console.log(
						`n8n ${e2e.n8n.version}: killed while the Activity Trigger's execution of 3 removals waited; ` +
							`${ranAgain.length} execution(s) ran them again by themselves, the last ended ` +
							`${((Math.max(...ranAgain.map((e) => Date.parse(e.stoppedAt ?? e.startedAt))) - killed) / 1000).toFixed(1)} s ` +
							`after the kill; 3 welcome and 3 follow-up sessions, none twice`,
					);
				},
				8 * 60_000,
			);
		});
}
