import { randomUUID } from 'node:crypto';
import { demoVersionsOf, type ApiClient } from '../../../tooling/api/client';
import { eventually } from '../../../tooling/eventually';
import { patiently } from '../../../tooling/n8n/processes';
import { createSessionNode, workflowNode } from '../../../tooling/n8n/workflows';
import type { E2e } from '../context';
import { behaviour } from './n8n-behaviours';
import { NODE_TYPE } from '../../../tooling/root';

type OrgName = 'onceOnReceipt' | 'onceWhenFinished' | 'dedupeAfterTrigger' | 'dedupeBeforeEffect';

interface ListedExecution {
	id: string;
	status: string;
	startedAt?: string | null;
	retryOf?: string | null;
	retrySuccessId?: string | null;
}

const TRIGGER = 'Member removed';
/** Members removed at once for each acknowledgement mode (both modes' workflows run side by side). */
const EVENTS_PER_MODE = 12;

/**
 * A Training Lab effect happens once per event however often n8n runs the event, and the patterns
 * the README gives for other effects lose nothing: n8n is SIGKILLed in a burst of member removals
 * while some executions have not begun ("new": n8n's concurrency limit or the workers' slots hold
 * them) and others run.
 */
export function oncePerEventScenarios(e2e: E2e): void {
	/** The notices a path of the receiver got, by the `user_id` of their body. */
	function noticesByMember(path: string): Map<string, Array<{ key?: string }>> {
		const byMember = new Map<string, Array<{ key?: string }>>();
		for (const notice of e2e.notices.at(`/${path}`)) {
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
		const page = await e2e.client.api<{ data: ListedExecution[] }>(
			'GET',
			`/executions?workflowId=${workflowId}&limit=250`,
		);
		const running = await e2e.client.runningExecutions(workflowId);
		const listed = new Set(page.data.map((execution) => execution.id));
		return [
			...page.data,
			...running
				.filter((execution) => !listed.has(execution.id))
				.map((execution) => ({ ...execution, status: 'running' })),
		];
	}

	/**
	 * Waits until none of the workflow's executions is new or running, but those n8n left when it
	 * was killed at `killedAt`: in `leftNew`, the executions an n8n that leaves them
	 * (traits.enqueuedAtStart) had not begun; and in one process, those that had begun but run no
	 * node yet, which n8n's recovery leaves running for good (docs/n8n-findings.md). Returns them all.
	 */
	async function executionsAtRest(
		workflowId: string,
		killedAt: number,
		leftNew = new Set<string>(),
	): Promise<ListedExecution[]> {
		let last: ListedExecution[] = [];
		// In queue mode n8n marks what a killed worker ran as crashed only at its queue recovery check.
		const leftRunning = (e: ListedExecution) =>
			!e2e.topology.queue && !!e.startedAt && Date.parse(e.startedAt) < killedAt;
		return eventually(
			async () => {
				last = await executionsOf(workflowId);
				const atRest = (e: ListedExecution) =>
					!['new', 'running'].includes(e.status) ||
					(e.status === 'new' && leftNew.has(e.id)) ||
					(e.status === 'running' && leftRunning(e));
				return last.every(atRest) && last;
			},
			'every execution to have ended',
			patiently(420_000, e2e.n8n.log, () => JSON.stringify(last.map((e) => [e.id, e.status]))),
		);
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

	/**
	 * The workflow of the first scenario for one acknowledgement mode: a session per removed member
	 * (no key of the user's), a gate in the receiver that holds the execution until the test opens it,
	 * then two effects outside Training Lab as the README advises them: a notice carrying that
	 * system's idempotency key (the event's webhook_id), and a notice sent only where a look-up in the
	 * receiver does not find it.
	 */
	function effectWorkflow(options: {
		acknowledge: string;
		orgName: string;
		credentialId: string;
		publishedVersion: string;
		webhookId: string;
		path: string;
	}) {
		const { acknowledge, orgName, credentialId, webhookId, path } = options;
		const member = `$('${TRIGGER}').item.json.data.user_id`;
		const eventId = `$('${TRIGGER}').item.json.webhook_id`;
		const receiver = e2e.notices.url;
		const credentials = { trainingLabApi: { id: credentialId, name: orgName } };
		const post = (name: string, x: number, url: string, extra: object) =>
			workflowNode(name, 'n8n-nodes-base.httpRequest', x, {
				typeVersion: 4.2,
				parameters: { method: 'POST', url, sendBody: true, options: {}, ...extra },
			});
		const order = [
			TRIGGER,
			'Create session',
			'Wait at the gate',
			'Send notice',
			'Look up notice',
			'Not sent yet',
			'Send checked notice',
		];
		return {
			name: `One session per event (${acknowledge})`,
			settings: { executionOrder: 'v1' },
			nodes: [
				workflowNode(TRIGGER, NODE_TYPE.trainingLabTrigger, 0, {
					typeVersion: 1,
					webhookId,
					parameters: { events: ['member.removed'], acknowledge },
					credentials,
				}),
				createSessionNode(200, {
					title: `=Offboarding {{ $json.data.user_id }}`,
					labVersion: options.publishedVersion,
					capacity: 5,
					credential: credentials.trainingLabApi,
				}),
				workflowNode('Wait at the gate', 'n8n-nodes-base.httpRequest', 400, {
					typeVersion: 4.2,
					parameters: { url: `${receiver}/gate-${path}`, options: {} },
				}),
				post('Send notice', 600, `${receiver}/${path}`, {
					sendHeaders: true,
					headerParameters: {
						parameters: [{ name: 'Idempotency-Key', value: `={{ ${eventId} }}` }],
					},
					bodyParameters: { parameters: [{ name: 'user_id', value: `={{ ${member} }}` }] },
				}),
				workflowNode('Look up notice', 'n8n-nodes-base.httpRequest', 800, {
					typeVersion: 4.2,
					parameters: {
						url: `=${receiver}/checked-${path}?webhook_id={{ ${eventId} }}`,
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
				post('Send checked notice', 1200, `${receiver}/checked-${path}`, {
					bodyParameters: {
						parameters: [
							{ name: 'user_id', value: `={{ ${member} }}` },
							{ name: 'webhook_id', value: `={{ ${eventId} }}` },
						],
					},
				}),
			],
			connections: Object.fromEntries(
				order
					.slice(1)
					.map((to, index) => [order[index], { main: [[{ node: to, type: 'main', index: 0 }]] }]),
			),
		};
	}

	/**
	 * The receiver answers a look-up (`GET /checked-…?webhook_id=`) with how many notices carry that
	 * id, and holds every `GET /gate-…` until `openGate` is called: executions stay running there for
	 * as long as the test needs, however slowly n8n takes the burst.
	 */
	function answerLookUpsAndGate(): { openGate: () => void; stopAnswering: () => void } {
		const previousReply = e2e.notices.reply;
		let openGate!: () => void;
		const gateOpen = new Promise<void>((resolve) => (openGate = resolve));
		const json = { 'content-type': 'application/json' };
		e2e.notices.reply = (delivery) => {
			const url = new URL(delivery.path, 'http://receiver');
			if (delivery.method === 'GET' && url.pathname.startsWith('/gate-'))
				return { status: 200, headers: json, body: '{"open":true}', after: gateOpen };
			if (delivery.method !== 'GET' || !url.pathname.startsWith('/checked-'))
				return previousReply(delivery);
			const wanted = url.searchParams.get('webhook_id');
			const count = e2e.notices
				.at(url.pathname)
				.filter((notice) => JSON.parse(notice.body).webhook_id === wanted).length;
			return { status: 200, headers: json, body: JSON.stringify({ count }) };
		};
		return {
			openGate,
			stopAnswering: () => {
				openGate();
				e2e.notices.reply = previousReply;
			},
		};
	}

	describe('one Training Lab effect per event: n8n killed in a burst with executions not yet begun and running', () => {
		it(
			'whichever way the trigger acknowledges, the API holds exactly one session per event after the restart and every retry',
			async () => {
				const n8n = e2e.n8n;
				const modes = [
					{ acknowledge: 'onReceipt', orgName: 'onceOnReceipt' },
					{ acknowledge: 'whenFinished', orgName: 'onceWhenFinished' },
				] as const;
				const { openGate, stopAnswering } = answerLookUpsAndGate();
				const runs: Array<{
					acknowledge: string;
					orgName: OrgName;
					api: ApiClient;
					path: string;
					workflowId: string;
					members: Array<{ user_id: string }>;
					orgId: string;
				}> = [];
				try {
					for (const { acknowledge, orgName } of modes) {
						const { client: api, api_key, org } = e2e.org(orgName);
						const webhookId = randomUUID();
						const path = `once-${acknowledge}-${randomUUID()}`;
						const workflow = effectWorkflow({
							acknowledge,
							orgName,
							credentialId: await e2e.credential(`Training Lab ${orgName}`, api.baseUrl, api_key),
							publishedVersion: (await demoVersionsOf(api)).published,
							webhookId,
							path,
						});
						const workflowId = await e2e.createTrigger(workflow, orgName);
						const members = await e2e.addTrainers(orgName, EVENTS_PER_MODE);
						runs.push({ acknowledge, orgName, api, path, workflowId, members, orgId: org.id });
					}
					await Promise.all(
						runs.flatMap(({ api, orgId, members }) =>
							members.map((m) => api.delete(`/orgs/${orgId}/members/${m.user_id}`)),
						),
					);
					// Killed once every event has its execution, some running (held at the gate), others
					// waiting to begin ("new").
					const atKill = await eventually(
						async () => {
							const each = await Promise.all(runs.map((run) => executionsOf(run.workflowId)));
							const all = each.flat();
							const count = (status: string) => all.filter((e) => e.status === status).length;
							const everyEvent = each.every((executions) => executions.length >= EVENTS_PER_MODE);
							return everyEvent && count('running') > 0 && count('new') > 0 && each;
						},
						'executions running and executions waiting to begin',
						patiently(60_000, n8n.log),
					);
					const killedAt = Date.now();
					await n8n.kill();
					openGate();
					await n8n.restart();
					// What n8n had not begun: run at its start, or left "new" for good (retrying one answers
					// 409); then the API's redelivery runs those events.
					const leftNew = new Set(
						e2e.traits.enqueuedAtStart === 'left'
							? atKill
									.flat()
									.filter((e) => e.status === 'new')
									.map((e) => e.id)
							: [],
					);

					// n8n runs what it had not begun, the API delivers what was not answered; then a person
					// retries what n8n left unfinished (crashed, failed in queue mode, or left running).
					await e2e.deliveriesSettled('onceWhenFinished', 420_000);
					const retried: number[] = [];
					for (const run of runs) {
						const ended = await behaviour(
							e2e.traits.enqueuedAtStart === 'run'
								? 'at its start, n8n runs the executions it had not begun when it died'
								: 'at its start, n8n leaves the executions it had not begun when it died "new"',
							() => executionsAtRest(run.workflowId, killedAt, leftNew),
						);
						// What n8n left "new" cannot be retried. What it left running, a person stops (n8n
						// then lists it canceled) and retries.
						const unfinished = ended.filter(
							(e) => !['success', 'canceled', 'new'].includes(e.status),
						);
						for (const execution of unfinished) {
							if (execution.status === 'running') await e2e.stopByHand(execution.id);
							await e2e.retryByHand(execution.id);
						}
						retried.push(unfinished.length);
						await eventually(
							async () =>
								(await executionsOf(run.workflowId)).length >= ended.length + unfinished.length,
							'the retries to start',
							patiently(60_000, n8n.log),
						);
					}
					const ended = await Promise.all(
						runs.map((run) => executionsAtRest(run.workflowId, killedAt, leftNew)),
					);
					await e2e.deliveriesSettled('onceWhenFinished', 420_000);

					for (const [index, run] of runs.entries()) {
						const ids = run.members.map((m) => m.user_id).sort();
						const sessions = await sessionsByMember(run.api);
						expect([...sessions.entries()].filter(([, count]) => count !== 1)).toEqual([]);
						const notices = noticesByMember(run.path);
						for (const sent of notices.values())
							expect(new Set(sent.map((n) => n.key)).size).toBe(1);
						const checked = noticesByMember(`checked-${run.path}`);
						// An n8n that leaves what it had not begun "new" never runs an event it had already
						// acknowledged on receipt: exactly those events are lost (README → Compatibility).
						const lost =
							run.acknowledge === 'onReceipt'
								? ended[index].filter((e) => e.status === 'new').length
								: 0;
						if (lost === 0) {
							// Nothing lost: every event reached the end at least once, every run of an event
							// sent that event's one key, and the look-up let every event through.
							expect([...sessions.keys()].sort()).toEqual(ids);
							expect([...notices.keys()].sort()).toEqual(ids);
							expect([...checked.keys()].sort()).toEqual(ids);
						} else
							for (const reached of [sessions, notices, checked]) {
								expect(ids).toEqual(expect.arrayContaining([...reached.keys()]));
								expect(reached.size).toBe(ids.length - lost);
							}

						const twice = (byMember: Map<string, unknown[]>) =>
							[...byMember.values()].filter((sent) => sent.length > 1).length;
						const count = (status: string) =>
							atKill[index].filter((e) => e.status === status).length;
						console.log(
							`n8n ${n8n.version} (${e2e.topology.executors.join(', ')}), acknowledging ${run.acknowledge}: ` +
								`killed with ${count('running')} executions running and ${count('new')} not begun of ` +
								`${EVENTS_PER_MODE} events; ${ended[index].length} executions in all, ${retried[index]} ` +
								`retried by hand; ${twice(notices)} events ran to the end twice or more; ` +
								`${sessions.size} sessions, one per event${lost ? ` (${lost} events lost, left "new")` : ''}; ` +
								`the look-up before the checked notice let ` +
								`${twice(checked)} events through twice`,
						);
					}
				} finally {
					stopAnswering();
					for (const run of runs) await e2e.deactivate(run.workflowId);
				}
			},
			20 * 60_000,
		);
	});

	// Measured in n8n 2.x in one process only: what Remove Duplicates does where a user puts it.
	if (e2e.topology.pin === '2.x' && !e2e.topology.queue)
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
					const n8n = e2e.n8n;
					const { client: api, api_key, org } = e2e.org(orgName);
					const path = `dedupe-${randomUUID()}`;
					const credentialId = await e2e.credential(`dedupe ${placement}`, api.baseUrl, api_key);
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
							workflowNode(TRIGGER, NODE_TYPE.trainingLabTrigger, 0, {
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
									url: `${e2e.notices.url}/paused-${path}`,
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
									url: `${e2e.notices.url}/${path}`,
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
					const workflowId = await e2e.createTrigger(workflow, orgName);
					try {
						const members = await e2e.addTrainers(orgName, 10);
						await Promise.all(
							members.map((m) => api.delete(`/orgs/${org.id}/members/${m.user_id}`)),
						);
						// Every execution waits in the Pause: past Remove Duplicates, or not yet at it.
						await eventually(
							() => noticesByMember(`paused-${path}`).size === 10,
							'10 executions in the pause',
							patiently(60_000, n8n.log),
						);
						const killedAt = Date.now();
						await n8n.kill();
						await n8n.restart();
						await e2e.deliveriesSettled(orgName, 240_000);
						await executionsAtRest(workflowId, killedAt);
						const noticed = [...noticesByMember(path).keys()];
						if (outcome === 'none lost') expect(noticed).toHaveLength(10);
						else expect(noticed.length).toBeLessThan(10);
						console.log(
							`n8n ${n8n.version}, Remove Duplicates ${placement}, n8n killed with 10 executions in a ` +
								`5 s pause: ${noticed.length} of 10 events reached the effect after the API delivered them again`,
						);
					} finally {
						await e2e.deactivate(workflowId);
					}
				},
				8 * 60_000,
			);
		});
}
