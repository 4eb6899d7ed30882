import { randomUUID } from 'node:crypto';
import { eventually } from '../../../tooling/eventually';
import { patiently } from '../../../tooling/n8n/processes';
import { STARTED_LOG_LINE } from '../../../tooling/n8n/pins';
import { webhookNode, workflowNode } from '../../../tooling/n8n/workflows';
import type { E2e } from '../context';

/** Requests of the stream through a restart that may wait for their answer at once. */
const MAX_UNANSWERED = 8;

/** What fails around the trigger: n8n down, a stream through a restart, n8n or a worker killed, Redis restarted. */
export function outageScenarios(e2e: E2e): void {
	describe('n8n down while events happen', () => {
		// n8n's webhooks are reached through a readiness gate (as behind a load balancer): starting up,
		// n8n answers every request with "200 n8n is starting up", which the API takes as delivered.
		it(
			'every event of the downtime starts exactly one execution once n8n is back',
			async () => {
				const { client: api, org } = e2e.org('outage');
				const id = await e2e.memberRemovalTrigger('outage');
				const members = await e2e.addTrainers('outage', 20);

				await e2e.n8n.kill();
				for (const member of members)
					expect((await api.delete(`/orgs/${org.id}/members/${member.user_id}`)).status).toBe(204);
				// Every delivery has been tried and refused while n8n was away.
				await eventually(
					async () => {
						const deliveries = e2e.deliveriesOf('outage');
						return (
							deliveries.length === 20 &&
							deliveries.every((d) => d.attempts >= 1 && d.status !== 'succeeded')
						);
					},
					'every delivery to have failed once',
					patiently(60_000),
				);
				const restarted = Date.now();
				const turnedAwayBefore = e2e.n8n.gate!.turnedAway;
				await e2e.n8n.restart();
				const executions = await e2e.executions(
					id,
					(all) => all.length >= 20 && all.every((e) => e.status === 'success'),
					'an execution per removal after the restart',
					240_000,
				);
				const settled = await e2e.deliveriesSettled('outage');
				expect(await e2e.client.executions(id)).toHaveLength(20);
				const removed = executions.flatMap((execution) =>
					e2e.nodeOutput(execution, 'Offboarding notice').map((item) => item.user_id),
				);
				expect(removed.sort()).toEqual(members.map((member) => member.user_id).sort());
				expect(e2e.noticesSent('outage')).toEqual(members.map((member) => member.user_id).sort());
				expect(settled.every((delivery) => delivery.attempts >= 2)).toBe(true);
				const lastStarted = Math.max(
					...executions.map((execution) => Date.parse(execution.startedAt)),
				);
				console.log(
					`n8n ${e2e.n8n.version} (${e2e.topology.executors.join(', ')}): 20 events during the downtime, ` +
						`${executions.length} executions, the last ${((lastStarted - restarted) / 1000).toFixed(1)} s ` +
						`after the restart began; attempts per delivery ${Math.min(...settled.map((d) => d.attempts))}–${Math.max(...settled.map((d) => d.attempts))}; ` +
						`${e2e.n8n.gate!.turnedAway - turnedAwayBefore} turned away by the readiness gate while n8n started`,
				);
			},
			8 * 60_000,
		);

		it(
			'a stream of requests through a restart: each one the gate lets in is answered and runs once',
			async () => {
				// A request every 25 ms while n8n is killed with 10 executions running (held by a 5 s pause),
				// started again and serving, to a workflow that sends a notice per request. n8n 1.x serves
				// webhooks while it starts; a request that came in just before it started the executions it
				// found "new" ran twice (one execution id) and was never answered, unless the gate waited
				// for n8n's start to end. At most 8 requests are unanswered at once: a stream a busy 2-core
				// machine can answer, which still reaches n8n at every moment of its restart.
				const path = `restart-stream-${randomUUID()}`;
				const id = await e2e.create({
					name: 'Restart stream',
					settings: { executionOrder: 'v1' },
					nodes: [
						webhookNode(path, 'lastNode'),
						workflowNode('Pause', 'n8n-nodes-base.wait', 200, {
							typeVersion: 1.1,
							parameters: {
								resume: 'timeInterval',
								amount: "={{ $json.body.request.startsWith('killed') ? 5 : 0 }}",
								unit: 'seconds',
							},
						}),
						e2e.noticeNode(path, 'request', '={{ $json.body.request }}', 400),
					],
					connections: {
						Webhook: { main: [[{ node: 'Pause', type: 'main', index: 0 }]] },
						Pause: { main: [[{ node: 'Send notice', type: 'main', index: 0 }]] },
					},
				});
				await e2e.activate(id);
				const url = `${e2e.n8n.webhookBase}/webhook/${path}`;
				const post = (request: string) =>
					fetch(url, {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({ request }),
						// Answered at once when n8n runs it (the killed ones after their pause); a minute means never.
						signal: AbortSignal.timeout(60_000),
					});
				const killed = Array.from({ length: 10 }, (_, index) =>
					post(`killed ${index}`).catch(() => undefined),
				);
				await eventually(
					async () => (await e2e.client.runningExecutions(id)).length === 10,
					'10 executions running',
					patiently(60_000, e2e.n8n.log),
				);
				await e2e.n8n.kill();
				await Promise.all(killed);
				const gate = e2e.n8n.gate!;
				const restart = { state: 'running' as 'running' | 'done' | 'failed' };
				const restarted = e2e.n8n.restart().then(
					() => void (restart.state = 'done'),
					(error: unknown) => {
						restart.state = 'failed';
						throw error;
					},
				);
				// Until n8n has started (the main process says so) and the gate has let in 40 more.
				let letInWhenStarted: number | undefined;
				const answers: Array<Promise<number | 'unanswered'>> = [];
				const unanswered = new Set<Promise<unknown>>();
				for (
					let request = 0;
					restart.state === 'running' ||
					(restart.state === 'done' &&
						(letInWhenStarted === undefined || gate.letIn - letInWhenStarted < 40));
					request++
				) {
					if (
						letInWhenStarted === undefined &&
						restart.state === 'done' &&
						e2e.n8n.processes.main.hasLogged(STARTED_LOG_LINE)
					)
						letInWhenStarted = gate.letIn;
					if (unanswered.size >= MAX_UNANSWERED) await Promise.race(unanswered);
					const answer = post(String(request)).then(
						async (response) => {
							await response.arrayBuffer();
							return response.status;
						},
						() => 'unanswered' as const,
					);
					answers.push(answer);
					unanswered.add(answer);
					void answer.finally(() => unanswered.delete(answer));
					await new Promise((resolve) => setTimeout(resolve, 25));
				}
				await restarted;
				const statuses = await Promise.all(answers);
				const letIn = statuses.flatMap((status, request) =>
					status === 200 ? [String(request)] : [],
				);
				expect(
					statuses.flatMap((status, request) => (status === 'unanswered' ? [request] : [])),
				).toEqual([]);
				// Turned away by the gate (503, or 502 when n8n went away after the gate's check): nothing else.
				expect(statuses.filter((status) => ![200, 502, 503].includes(status as number))).toEqual(
					[],
				);
				const noticed = e2e
					.noticesSent(path, 'request')
					.filter((request) => !request.startsWith('killed'));
				expect(noticed).toEqual(letIn.sort());
				console.log(
					`n8n ${e2e.n8n.version}: ${statuses.length} requests through a restart, ${letIn.length} let in, ` +
						`each answered and run once; ${statuses.length - letIn.length} turned away`,
				);
			},
			8 * 60_000,
		);
	});

	describe('n8n killed while triggered executions run (Acknowledge Deliveries: when the workflow has finished)', () => {
		it(
			'every event still ends in exactly one successful execution',
			async () => {
				const { client: api, org } = e2e.org('crash');
				// A 5 s pause before the notice: executions are running when the executor is killed.
				const id = await e2e.memberRemovalTrigger('crash', e2e.answeredWhenFinished(5));
				const members = await e2e.addTrainers('crash', 10);
				await Promise.all(
					members.map((member) => api.delete(`/orgs/${org.id}/members/${member.user_id}`)),
				);
				// The first executor (n8n itself, or the first worker) is killed while it runs executions.
				const victim = e2e.topology.executors[0];
				const running = await eventually(
					async () => {
						const all = await e2e.client.runningExecutions(id);
						// Every event begun (n8n 2.x starts at boot the executions it had accepted but not
						// begun: such an event would also come again from the API, and run twice).
						const onVictim = all.filter((execution) => e2e.executedBy(execution.id) === victim);
						return all.length === 10 && onVictim.length > 0 && all;
					},
					`executions running on ${victim}`,
					patiently(60_000, e2e.n8n.log),
				);
				await e2e.n8n.processes[victim].kill();
				const killed = Date.now();
				// Started again while the API retries (a queue-mode worker is not needed for recovery).
				const restarted = e2e.n8n.processes[victim].restart();
				restarted.catch(() => undefined); // awaited below
				const succeeded = await e2e.successfulExecutions(id, members.length);
				await restarted;
				await e2e.deliveriesSettled('crash');
				const finished = await e2e.client.executions(id);
				const notified = e2e.notifiedMembers(finished);
				expect(notified).toEqual(members.map((member) => member.user_id).sort());
				expect(e2e.noticesSent('crash')).toEqual(notified);
				const lastStarted = Math.max(
					...succeeded.map((execution) => Date.parse(execution.startedAt)),
				);
				console.log(
					`n8n ${e2e.n8n.version}, ${victim} killed with ${running.length} executions running: ` +
						`10 events, ${notified.length} successful executions (${finished.length - notified.length} ` +
						`others, left by the kill), the last ${((lastStarted - killed) / 1000).toFixed(1)} s after the kill`,
				);
			},
			8 * 60_000,
		);
	});

	// Redis persisting to its append-only file, as n8n's queue needs (README, "Running in n8n queue mode").
	if (e2e.topology.queue)
		describe('Redis restarted during a burst (queue mode)', () => {
			it.each([
				['on receipt', 'onReceipt', 'redisOnReceipt'],
				['when the workflow has finished', 'whenFinished', 'redisWhenFinished'],
			])(
				'Acknowledge Deliveries %s: every event ends in exactly one successful execution',
				async (_, acknowledge, orgName) => {
					const { client: api, org } = e2e.org(orgName);
					const id = await e2e.memberRemovalTrigger(orgName, (workflow) => {
						// A 3 s pause: executions are running when Redis goes away.
						e2e.answeredWhenFinished(3)(workflow);
						workflow.nodes[0].parameters.acknowledge = acknowledge;
					});
					const members = await e2e.addTrainers(orgName, 20);
					// 20 removals, one every 250 ms; Redis restarted after the 10th: executions are running on
					// the workers, queued for them, and arriving while Redis is away.
					let restart: Promise<void> | undefined;
					let restartedAt = 0;
					let runningAtRestart = 0;
					for (const [index, member] of members.entries()) {
						if (index === 10) {
							runningAtRestart = (await e2e.client.runningExecutions(id)).length;
							restartedAt = Date.now();
							restart = e2e.n8n.redis!.restart();
						}
						const removed = api.delete(`/orgs/${org.id}/members/${member.user_id}`);
						expect((await removed).status).toBe(204);
						await new Promise((resolve) => setTimeout(resolve, 250));
					}
					await restart;
					expect(runningAtRestart).toBeGreaterThan(0);
					const succeeded = await e2e.successfulExecutions(id, members.length);
					const settled = await e2e.deliveriesSettled(orgName);
					const finished = await e2e.client.executions(id);
					const notified = e2e.notifiedMembers(finished);
					expect(notified).toEqual(members.map((member) => member.user_id).sort());
					expect(e2e.noticesSent(orgName)).toEqual(notified);
					const lastStarted = Math.max(
						...succeeded.map((execution) => Date.parse(execution.startedAt)),
					);
					const others = finished.filter((execution) => execution.status !== 'success');
					console.log(
						`n8n ${e2e.n8n.version}, acknowledging ${acknowledge}, Redis restarted in a burst of 20 events ` +
							`with ${runningAtRestart} executions running: ` +
							`${notified.length} successful executions, ${others.length} others` +
							`${others.length ? ` (${others.map((e) => e.status).join(', ')})` : ''}; the last started ` +
							`${((lastStarted - restartedAt) / 1000).toFixed(1)} s after the restart began; attempts per ` +
							`delivery ${Math.min(...settled.map((d) => d.attempts))}–${Math.max(...settled.map((d) => d.attempts))}`,
					);
				},
				8 * 60_000,
			);
		});
}
