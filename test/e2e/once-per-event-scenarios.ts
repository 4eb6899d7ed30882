import { randomUUID } from 'node:crypto';
import { demoVersionsOf, type ApiClient } from '../support/api-client';
import { eventually } from '../support/eventually';
import type { Receiver } from '../support/receiver';
import { patiently, workflowNode, type N8n, type N8nClient } from '../support/real-n8n';
import type { Topology } from './scenarios';

/** What these scenarios use of the suite around them (one n8n, one API server, one notice receiver). */
export interface Suite {
	topology: Topology;
	n8n(): N8n;
	client(): N8nClient;
	notices(): Receiver;
	org(name: OrgName): {
		org: { id: string };
		api_key: string;
		client: ApiClient;
	};
	credential(name: string, baseUrl: string, apiKey: string): Promise<string>;
	/** Creates a trigger workflow, activates it and waits until its endpoint is registered. */
	activateTrigger(workflow: object, org: string, webhookPath: string): Promise<string>;
	/** Adds `count` trainers to the organisation, one after another. */
	addTrainers(org: string, count: number): Promise<Array<{ user_id: string }>>;
	/** Waits (up to `timeoutMs`) until every delivery to the organisation's endpoints has succeeded. */
	deliveriesSettled(org: string, timeoutMs?: number): Promise<Array<{ attempts: number }>>;
}

type OrgName = 'onceOnReceipt' | 'onceWhenFinished' | 'dedupeAfterTrigger' | 'dedupeBeforeEffect';

interface ListedExecution {
	id: string;
	status: string;
	retryOf?: string | null;
	retrySuccessId?: string | null;
}

const TRIGGER = 'Member removed';

/**
 * A Training Lab effect happens once per event however often n8n runs the event, and the patterns
 * the README gives for other effects lose nothing: n8n is SIGKILLed in a burst of member removals
 * while some executions have not begun ("new": n8n's concurrency limit or the workers' slots hold
 * them) and others run.
 */
export function oncePerEventScenarios(suite: Suite): void {
	/** The notices a path of the receiver got, by the `user_id` of their body. */
	function noticesByMember(path: string): Map<string, Array<{ key?: string }>> {
		const byMember = new Map<string, Array<{ key?: string }>>();
		for (const notice of suite.notices().at(`/${path}`)) {
			if (notice.method !== 'POST') continue;
			const { user_id } = JSON.parse(notice.body) as { user_id: string };
			byMember.set(user_id, [
				...(byMember.get(user_id) ?? []),
				{ key: notice.headers['idempotency-key'] as string | undefined },
			]);
		}
		return byMember;
	}

	/** Every execution of a workflow, without data (n8n's public API, a page of 250). */
	async function executionsOf(workflowId: string): Promise<ListedExecution[]> {
		const page = await suite
			.client()
			.api<{ data: ListedExecution[] }>('GET', `/executions?workflowId=${workflowId}&limit=250`);
		const running = await suite.client().runningExecutions(workflowId);
		const listed = new Set(page.data.map((execution) => execution.id));
		return [
			...page.data,
			...running
				.filter((execution) => !listed.has(execution.id))
				.map((execution) => ({ ...execution, status: 'running' })),
		];
	}

	/** Waits until none of the workflow's executions is new or running; returns them all. */
	async function executionsAtRest(workflowId: string): Promise<ListedExecution[]> {
		return eventually(
			async () => {
				const all = await executionsOf(workflowId);
				return all.every((e) => !['new', 'running'].includes(e.status)) && all;
			},
			'every execution to have ended',
			patiently(240_000, suite.n8n().log),
		);
	}

	/** n8n's retry of an execution, as a person does it from the executions list. */
	async function retryByHand(executionId: string): Promise<void> {
		if (suite.n8n().line === '2.x')
			await suite.client().api('POST', `/executions/${executionId}/retry`, { loadWorkflow: false });
		else
			await suite
				.client()
				.rest('POST', `/rest/executions/${executionId}/retry`, { loadWorkflow: false });
	}

	/** Sessions titled `Offboarding <user_id>`, counted by member. */
	async function sessionsByMember(api: ApiClient): Promise<Map<string, number>> {
		const counts = new Map<string, number>();
		for (const session of (await api.getAll('/sessions?limit=200')).items as Array<{
			title: string;
		}>) {
			const member = /^Offboarding (.+)$/.exec(session.title)?.[1];
			if (member) counts.set(member, (counts.get(member) ?? 0) + 1);
		}
		return counts;
	}

	describe('one Training Lab effect per event: n8n killed in a burst with executions not yet begun and running', () => {
		it.each([
			['on receipt', 'onReceipt', 'onceOnReceipt'],
			['when the workflow has finished', 'whenFinished', 'onceWhenFinished'],
		] as const)(
			'Acknowledge Deliveries %s: the API holds exactly one session per event after the restart and every retry',
			async (_, acknowledge, orgName) => {
				const n8n = suite.n8n();
				const { client: api, api_key, org } = suite.org(orgName);
				const { published } = await demoVersionsOf(api);
				const path = `once-${acknowledge}-${randomUUID()}`;
				const credentialId = await suite.credential(
					`Training Lab ${orgName}`,
					api.baseUrl,
					api_key,
				);
				const webhookId = randomUUID();
				const member = `$('${TRIGGER}').item.json.data.user_id`;
				const eventId = `$('${TRIGGER}').item.json.webhook_id`;
				const workflow = {
					name: `One session per event (${acknowledge})`,
					settings: { executionOrder: 'v1' },
					nodes: [
						workflowNode(TRIGGER, 'n8n-nodes-traininglab.trainingLabTrigger', 0, {
							typeVersion: 1,
							webhookId,
							parameters: { events: ['member.removed'], acknowledge },
							credentials: { trainingLabApi: { id: credentialId, name: orgName } },
						}),
						// The effect: a session per removed member, with no key of the user's.
						workflowNode('Create session', 'n8n-nodes-traininglab.trainingLab', 200, {
							typeVersion: 1,
							parameters: {
								resource: 'session',
								operation: 'create',
								title: `=Offboarding {{ $json.data.user_id }}`,
								labVersion: { __rl: true, mode: 'id', value: published },
								capacity: 5,
								additionalFields: {},
							},
							credentials: { trainingLabApi: { id: credentialId, name: orgName } },
						}),
						workflowNode('Pause', 'n8n-nodes-base.wait', 400, {
							typeVersion: 1.1,
							parameters: { resume: 'timeInterval', amount: 3, unit: 'seconds' },
						}),
						// Effects outside Training Lab, as the README advises them. One carries that system's
						// idempotency key, the event's webhook_id: it counts each run that reached the end.
						workflowNode('Send notice', 'n8n-nodes-base.httpRequest', 600, {
							typeVersion: 4.2,
							parameters: {
								method: 'POST',
								url: `${suite.notices().url}/${path}`,
								sendHeaders: true,
								headerParameters: {
									parameters: [{ name: 'Idempotency-Key', value: `={{ ${eventId} }}` }],
								},
								sendBody: true,
								bodyParameters: { parameters: [{ name: 'user_id', value: `={{ ${member} }}` }] },
								options: {},
							},
						}),
						// The other looks the event up in that system first and acts only where it is missing.
						workflowNode('Look up notice', 'n8n-nodes-base.httpRequest', 800, {
							typeVersion: 4.2,
							parameters: {
								url: `=${suite.notices().url}/checked-${path}?webhook_id={{ ${eventId} }}`,
								options: {},
							},
						}),
						workflowNode('Not sent yet', 'n8n-nodes-base.if', 1000, {
							typeVersion: 2,
							parameters: {
								conditions: {
									options: { caseSensitive: true, leftValue: '', typeValidation: 'loose' },
									conditions: [
										{
											id: randomUUID(),
											leftValue: '={{ $json.count }}',
											rightValue: 0,
											operator: { type: 'number', operation: 'equals' },
										},
									],
									combinator: 'and',
								},
								options: {},
							},
						}),
						workflowNode('Send checked notice', 'n8n-nodes-base.httpRequest', 1200, {
							typeVersion: 4.2,
							parameters: {
								method: 'POST',
								url: `${suite.notices().url}/checked-${path}`,
								sendBody: true,
								bodyParameters: {
									parameters: [
										{ name: 'user_id', value: `={{ ${member} }}` },
										{ name: 'webhook_id', value: `={{ ${eventId} }}` },
									],
								},
								options: {},
							},
						}),
					],
					connections: Object.fromEntries(
						[
							[TRIGGER, 'Create session'],
							['Create session', 'Pause'],
							['Pause', 'Send notice'],
							['Send notice', 'Look up notice'],
							['Look up notice', 'Not sent yet'],
							['Not sent yet', 'Send checked notice'],
						].map(([from, to]) => [from, { main: [[{ node: to, type: 'main', index: 0 }]] }]),
					),
				};
				// The receiver answers the look-up with how many checked notices carry that webhook_id.
				const checkedPath = `/checked-${path}`;
				const previousReply = suite.notices().reply;
				suite.notices().reply = (delivery) => {
					if (delivery.method !== 'GET' || !delivery.path.startsWith(`${checkedPath}?`))
						return previousReply(delivery);
					const wanted = new URL(delivery.path, 'http://receiver').searchParams.get('webhook_id');
					const count = suite
						.notices()
						.at(checkedPath)
						.filter((notice) => JSON.parse(notice.body).webhook_id === wanted).length;
					return {
						status: 200,
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({ count }),
					};
				};
				const workflowId = await suite.activateTrigger(
					workflow,
					orgName,
					`${n8n.webhookBase}/webhook/${webhookId}/webhook`,
				);
				try {
					const members = await suite.addTrainers(orgName, 24);
					await Promise.all(members.map((m) => api.delete(`/orgs/${org.id}/members/${m.user_id}`)));
					// Killed once every event has its execution, some running, others waiting to begin ("new").
					const atKill = await eventually(
						async () => {
							const all = await executionsOf(workflowId);
							const count = (status: string) => all.filter((e) => e.status === status).length;
							return all.length >= 24 && count('running') > 0 && count('new') > 0 && all;
						},
						'executions running and executions waiting to begin',
						patiently(60_000, n8n.log),
					);
					await n8n.kill();
					await n8n.restart();

					if (acknowledge === 'whenFinished') await suite.deliveriesSettled(orgName, 300_000);
					let ended = await executionsAtRest(workflowId);
					// What n8n left unfinished (crashed, or failed in queue mode) a person retries.
					const unfinished = ended.filter((e) => !['success', 'canceled'].includes(e.status));
					for (const execution of unfinished) await retryByHand(execution.id);
					if (unfinished.length > 0) {
						await eventually(
							async () => (await executionsOf(workflowId)).length > ended.length,
							'the retries to start',
							patiently(60_000, n8n.log),
						);
						ended = await executionsAtRest(workflowId);
					}
					if (acknowledge === 'whenFinished') await suite.deliveriesSettled(orgName, 300_000);

					const ids = members.map((m) => m.user_id).sort();
					const sessions = await sessionsByMember(api);
					expect([...sessions.keys()].sort()).toEqual(ids);
					expect([...sessions.values()].every((count) => count === 1)).toBe(true);
					// Nothing lost: every event reached the end of the workflow at least once, and every
					// run of an event sent that event's one key.
					const notices = noticesByMember(path);
					expect([...notices.keys()].sort()).toEqual(ids);
					for (const sent of notices.values()) expect(new Set(sent.map((n) => n.key)).size).toBe(1);
					const checked = noticesByMember(`checked-${path}`);
					expect([...checked.keys()].sort()).toEqual(ids);

					const twice = (byMember: Map<string, unknown[]>) =>
						[...byMember.values()].filter((sent) => sent.length > 1).length;
					const count = (status: string) => atKill.filter((e) => e.status === status).length;
					console.log(
						`n8n ${n8n.line} (${suite.topology.executors.join(', ')}), acknowledging ${acknowledge}: ` +
							`killed with ${count('running')} executions running and ${count('new')} not begun of 24 events; ` +
							`${ended.length} executions in all, ${unfinished.length} retried by hand; ` +
							`${twice(notices)} events ran to the end twice or more; sessions 24, one per event; ` +
							`the check in the receiver before sending let ${twice(checked)} events through twice`,
					);
				} finally {
					suite.notices().reply = previousReply;
					await suite.client().api('POST', `/workflows/${workflowId}/deactivate`);
				}
			},
			10 * 60_000,
		);
	});

	// Measured in n8n 2.x in one process only: what Remove Duplicates does where a user puts it.
	if (suite.topology.line === '2.x' && !suite.topology.queue)
		describe('Remove Duplicates in a workflow answered when it has finished, n8n killed while executions run', () => {
			// Remove Duplicates records a value while its node runs, before what follows it has run. And
			// it keeps a workflow's values in one record that each execution reads and writes back:
			// executions running side by side overwrite each other's values.
			it.each([
				[
					'right after the trigger, as the README once advised',
					'after the trigger',
					'dedupeAfterTrigger',
					'some lost',
				],
				['right before the effect', 'before the effect', 'dedupeBeforeEffect', 'none lost'],
			] as const)(
				'%s: n8n killed with 10 executions paused after it or before it, the API delivers them again: %s',
				async (_, placement, orgName, outcome) => {
					const n8n = suite.n8n();
					const { client: api, api_key, org } = suite.org(orgName);
					const path = `dedupe-${randomUUID()}`;
					const credentialId = await suite.credential(`dedupe ${placement}`, api.baseUrl, api_key);
					const webhookId = randomUUID();
					// "Paused" tells the receiver an execution has reached the pause.
					const order =
						placement === 'after the trigger'
							? [TRIGGER, 'Remove Duplicates', 'Paused', 'Pause', 'Send notice']
							: [TRIGGER, 'Paused', 'Pause', 'Remove Duplicates', 'Send notice'];
					const workflow = {
						name: `Remove Duplicates ${placement}`,
						settings: { executionOrder: 'v1' },
						nodes: [
							workflowNode(TRIGGER, 'n8n-nodes-traininglab.trainingLabTrigger', 0, {
								typeVersion: 1,
								webhookId,
								parameters: { events: ['member.removed'], acknowledge: 'whenFinished' },
								credentials: { trainingLabApi: { id: credentialId, name: orgName } },
							}),
							workflowNode('Remove Duplicates', 'n8n-nodes-base.removeDuplicates', 200, {
								typeVersion: 2,
								parameters: {
									operation: 'removeItemsSeenInPreviousExecutions',
									dedupeValue: `={{ $('${TRIGGER}').item.json.webhook_id }}`,
									options: {},
								},
							}),
							workflowNode('Paused', 'n8n-nodes-base.httpRequest', 300, {
								typeVersion: 4.2,
								parameters: {
									method: 'POST',
									url: `${suite.notices().url}/paused-${path}`,
									sendBody: true,
									bodyParameters: {
										parameters: [
											{ name: 'user_id', value: `={{ $('${TRIGGER}').item.json.data.user_id }}` },
										],
									},
									options: {},
								},
							}),
							workflowNode('Pause', 'n8n-nodes-base.wait', 400, {
								typeVersion: 1.1,
								parameters: { resume: 'timeInterval', amount: 5, unit: 'seconds' },
							}),
							workflowNode('Send notice', 'n8n-nodes-base.httpRequest', 600, {
								typeVersion: 4.2,
								parameters: {
									method: 'POST',
									url: `${suite.notices().url}/${path}`,
									sendBody: true,
									bodyParameters: {
										parameters: [
											{ name: 'user_id', value: `={{ $('${TRIGGER}').item.json.data.user_id }}` },
										],
									},
									options: {},
								},
							}),
						],
						connections: Object.fromEntries(
							order
								.slice(1)
								.map((to, index) => [
									order[index],
									{ main: [[{ node: to, type: 'main', index: 0 }]] },
								]),
						),
					};
					const workflowId = await suite.activateTrigger(
						workflow,
						orgName,
						`${n8n.webhookBase}/webhook/${webhookId}/webhook`,
					);
					try {
						const members = await suite.addTrainers(orgName, 10);
						await Promise.all(
							members.map((m) => api.delete(`/orgs/${org.id}/members/${m.user_id}`)),
						);
						// Every execution waits in the Pause: past Remove Duplicates, or not yet at it.
						await eventually(
							() => noticesByMember(`paused-${path}`).size === 10,
							'10 executions in the pause',
							patiently(60_000, n8n.log),
						);
						await n8n.kill();
						await n8n.restart();
						await suite.deliveriesSettled(orgName, 240_000);
						await executionsAtRest(workflowId);
						const noticed = [...noticesByMember(path).keys()];
						if (outcome === 'none lost') expect(noticed).toHaveLength(10);
						else expect(noticed.length).toBeLessThan(10);
						console.log(
							`n8n ${n8n.line}, Remove Duplicates ${placement}, n8n killed with 10 executions in a ` +
								`5 s pause: ${noticed.length} of 10 events reached the effect after the API delivered them again`,
						);
					} finally {
						await suite.client().api('POST', `/workflows/${workflowId}/deactivate`);
					}
				},
				8 * 60_000,
			);
		});
}
