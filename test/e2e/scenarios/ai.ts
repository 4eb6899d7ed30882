import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent } from 'undici';
import { demoVersionsOf, type ApiClient } from '../../../tooling/api/client';
import { eventually } from '../../../tooling/eventually';
import { createSessionNode, example, webhookRows } from '../../../tooling/n8n/workflows';
import { patiently } from '../../../tooling/n8n/processes';
import type { E2e } from '../context';
import { ScriptedModel, type ScriptedCall } from './scripted-model';

async function sessionIdsTitled(api: ApiClient, title: string): Promise<string[]> {
	return (await api.getAll('/sessions?limit=200')).items
		.filter((session: { title: string }) => session.title === title)
		.map((session: { id: string }) => session.id)
		.sort();
}

/** The node as AI tools: behind an MCP Server Trigger, in an AI Agent, and n8n's retry of a failed execution. */
export function aiToolScenarios(e2e: E2e): void {
	if (e2e.scope === 'full')
		describe('the tools behind an MCP Server Trigger (examples/mcp-server.json), called by an MCP client', () => {
			const token = `mcp-${randomUUID()}`;
			// The client's connections, kept between requests as an MCP client's own fetch keeps
			// them: n8n's MCP Server Trigger ends a session when the connection it began on closes
			// (2.41.1, `McpServer.setupSession`), and the suites' fetch opens one per request
			// (test/support/no-keep-alive.ts).
			const connections = new Agent();
			let mcp: Client;
			let api: ApiClient;
			let versions: { published: string; draft: string };

			/** Calls a tool; `text` is what the client (and so the model) reads. */
			async function call(
				name: string,
				args: Record<string, unknown>,
			): Promise<{ isError: boolean; text: string }> {
				const result = (await mcp.callTool({ name, arguments: args })) as {
					isError?: boolean;
					content: Array<{ type: string; text: string }>;
				};
				return { isError: result.isError === true, text: result.content[0].text };
			}

			beforeAll(async () => {
				const tools = e2e.org('tools');
				api = tools.client;
				versions = await demoVersionsOf(api);
				const credentialId = await e2e.credential('Training Lab tools', api.baseUrl, tools.api_key);
				const bearer = await e2e.client.createCredential("MCP clients' token", 'httpBearerAuth', {
					token,
				});
				const { id } = await e2e.importExample('mcp-server', {
					YOUR_CREDENTIAL_ID: credentialId,
					YOUR_MCP_BEARER_CREDENTIAL_ID: bearer.id,
				});
				await e2e.activate(id);
				const url = new URL(`${e2e.n8n.webhookBase}/mcp/training-lab`);
				mcp = await eventually(
					async () => {
						const client = new Client({ name: 'traininglab-e2e', version: '1.0.0' });
						await client.connect(
							new StreamableHTTPClientTransport(url, {
								requestInit: {
									headers: { authorization: `Bearer ${token}` },
									dispatcher: connections,
								} as RequestInit,
							}),
						);
						return client;
					},
					'the MCP server to answer',
					patiently(60_000, e2e.n8n.log),
				);
			}, 120_000);

			afterAll(async () => {
				await mcp?.close();
				await connections.close();
			});

			it('lists every tool with the description and arguments written for a model', async () => {
				const { tools } = await mcp.listTools();
				expect(tools.map((tool) => tool.name).sort()).toEqual(
					[
						'Add_member',
						'Create_session',
						'Get_session',
						'List_lab_versions',
						'List_labs',
						'Who_am_I',
					].sort(),
				);
				const create = tools.find((tool) => tool.name === 'Create_session')!;
				expect(create.description).toMatch(/^Creates a scheduled training session/);
				expect(Object.keys(create.inputSchema.properties ?? {}).sort()).toEqual([
					'capacity',
					'lab_version_id',
					'title',
				]);
				const add = tools.find((tool) => tool.name === 'Add_member')!;
				expect(
					(add.inputSchema.properties as Record<string, { description?: string }>).role.description,
				).toMatch(/One of: admin, trainer/);
			});

			it('answers reads, and every create call creates, even one repeated word for word', async () => {
				const me = await call('Who_am_I', {});
				expect(JSON.parse(me.text)).toEqual([
					expect.objectContaining({
						org: expect.objectContaining({ id: e2e.org('tools').org.id }),
					}),
				]);
				const args = {
					title: 'Asked twice over MCP',
					lab_version_id: versions.published,
					capacity: 6,
				};
				const first = await call('Create_session', args);
				const second = await call('Create_session', args);
				const ids = [JSON.parse(first.text)[0].id, JSON.parse(second.text)[0].id];
				expect(ids[0]).not.toBe(ids[1]);
				expect(await sessionIdsTitled(api, 'Asked twice over MCP')).toEqual(ids.sort());
				const got = await call('Get_session', { session_id: ids[0] });
				expect(JSON.parse(got.text)[0]).toMatchObject({ id: ids[0], participants: 0 });
			});

			it("a refused call is an error carrying the API's message, code and status; nothing is created", async () => {
				const refused = await call('Create_session', {
					title: 'Refused over MCP',
					lab_version_id: versions.draft,
					capacity: 6,
				});
				expect(refused.isError).toBe(true);
				expect(refused.text).toMatch(/draft.*\(HTTP 409, Error code: lab_version_not_published\)/s);
				expect(await sessionIdsTitled(api, 'Refused over MCP')).toEqual([]);
			});

			it('add a member, remove them in the API, add again: the member is there', async () => {
				const orgId = e2e.org('tools').org.id;
				const args = { email: 'again@mcp.test', name: 'Again', role: 'Trainer' };
				const added = JSON.parse((await call('Add_member', args)).text)[0];
				expect(added).toMatchObject({ email: 'again@mcp.test', role: 'trainer' });
				expect((await api.delete(`/orgs/${orgId}/members/${added.user_id}`)).status).toBe(204);
				const again = JSON.parse((await call('Add_member', args)).text)[0];
				expect(again.user_id).not.toBe(added.user_id);
				const members = (await api.get(`/orgs/${orgId}/members`)).body as Array<{
					user_id: string;
					email: string;
				}>;
				expect(members.filter((member) => member.email === 'again@mcp.test')).toEqual([
					expect.objectContaining({ user_id: again.user_id }),
				]);
			});
		});

	describe('the AI Agent with the OpenAI Chat Model node (examples/ai-agent.json), a scripted model', () => {
		let model: ScriptedModel;
		let api: ApiClient;
		let versions: { published: string; draft: string };
		/** The example as shipped (its tools set to On Error: Continue), and a copy whose tools are not. */
		const chatUrls = { example: '', toolsFailing: '' };
		let toolsFailingId: string;

		/** Sends a chat message whose script the model plays; answers with n8n's status and text. */
		async function send(
			calls: ScriptedCall[],
			url = chatUrls.example,
		): Promise<{ status: number; text: string }> {
			const response = await fetch(url, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({
					action: 'sendMessage',
					sessionId: randomUUID(),
					chatInput: `Please do this. SCRIPT:${JSON.stringify(calls)}`,
				}),
			});
			return { status: response.status, text: await response.text() };
		}

		/** Sends a chat message whose script the model plays; resolves to the tool results the model got. */
		async function chat(calls: ScriptedCall[], url = chatUrls.example): Promise<string[]> {
			const answer = await send(calls, url);
			expect(answer).toEqual({ status: 200, text: expect.any(String) });
			const output = (JSON.parse(answer.text) as { output: string }).output;
			return JSON.parse(output.replace(/^RESULTS:/, '')) as string[];
		}

		beforeAll(async () => {
			model = await ScriptedModel.start();
			const agent = e2e.org('agent');
			api = agent.client;
			versions = await demoVersionsOf(api);
			const credentialId = await e2e.credential('Training Lab agent', api.baseUrl, agent.api_key);
			const openAi = await e2e.client.createCredential('Scripted model', 'openAiApi', {
				apiKey: 'sk-scripted',
				url: model.url,
				header: false,
			});
			const replacements = {
				YOUR_CREDENTIAL_ID: credentialId,
				YOUR_OPENAI_CREDENTIAL_ID: openAi.id,
			};
			const shipped = example('ai-agent', replacements);
			const toolsFailing = example('ai-agent', replacements);
			toolsFailing.name = 'Training Lab agent, tools without On Error';
			toolsFailing.nodes[0].webhookId = randomUUID();
			for (const node of toolsFailing.nodes) delete node.onError;
			for (const [name, workflow] of [
				['example', shipped],
				['toolsFailing', toolsFailing],
			] as const) {
				const id = await e2e.create(workflow);
				await e2e.activate(id);
				const url = `${e2e.n8n.webhookBase}/webhook/${workflow.nodes[0].webhookId}/chat`;
				await eventually(
					async () => (await fetch(url, { method: 'POST', body: '{}' })).status !== 404,
					'the chat webhook to be registered',
					patiently(60_000, e2e.n8n.log),
				);
				chatUrls[name] = url;
				if (name === 'toolsFailing') toolsFailingId = id;
			}
		}, 120_000);

		afterAll(async () => {
			await model?.stop();
		});

		it('two identical create calls in one turn create two sessions, and the model reads both', async () => {
			const args = {
				title: 'Asked twice of the agent',
				lab_version_id: versions.published,
				capacity: 4,
			};
			const results = await chat([
				{ tool: 'Create_session', args },
				{ tool: 'Create_session', args },
			]);
			const ids = results.map((result) => JSON.parse(result)[0].id as string);
			expect(ids).toHaveLength(2);
			expect(ids[0]).not.toBe(ids[1]);
			expect(await sessionIdsTitled(api, 'Asked twice of the agent')).toEqual(ids.sort());
			const offered = model.requests[0].tools.map((tool) => tool.function.name).sort();
			expect(offered).toEqual([
				'Create_session',
				'List_lab_versions',
				'List_labs',
				'List_sessions',
			]);
		});

		it("a refused call reaches the model as the API's message, code and status; nothing is created", async () => {
			const [result] = await chat([
				{
					tool: 'Create_session',
					args: { title: 'Refused by the agent', lab_version_id: versions.draft, capacity: 4 },
				},
			]);
			// The example's tools continue on error: the model reads the failed item.
			expect(JSON.parse(result)).toEqual([
				{
					error: {
						message: expect.stringMatching(/draft/),
						code: 'lab_version_not_published',
						httpCode: '409',
						description: expect.stringContaining('lab_version_not_published'),
					},
				},
			]);
			expect(await sessionIdsTitled(api, 'Refused by the agent')).toEqual([]);
		});

		it(`a tool without On Error: n8n ${e2e.topology.pin} ${e2e.traits.toolErrors === 'to the model' ? 'hands its error to the model' : 'ends the execution with it'}`, async () => {
			const calls = [
				{
					tool: 'Create_session',
					args: { title: 'Refused, tool failing', lab_version_id: versions.draft, capacity: 4 },
				},
			];
			if (e2e.traits.toolErrors === 'to the model') {
				const [result] = await chat(calls, chatUrls.toolsFailing);
				expect(result).toMatch(/draft.*\(HTTP 409, Error code: lab_version_not_published\)/s);
			} else {
				expect(await send(calls, chatUrls.toolsFailing)).toEqual({
					status: 500,
					text: JSON.stringify({ message: 'Error in workflow' }),
				});
				const [failed] = await e2e.executions(toolsFailingId, (executions) =>
					executions.some((execution) => execution.status === 'error'),
				);
				expect(failed.data.resultData.error.message).toMatch(
					/draft.*\(HTTP 409, Error code: lab_version_not_published\)/s,
				);
			}
			expect(await sessionIdsTitled(api, 'Refused, tool failing')).toEqual([]);
		});
	});

	if (e2e.scope === 'full')
		describe("n8n's retry of a failed execution", () => {
			it('a bulk run whose API went away half-way, retried in n8n, ends with every session exactly once', async () => {
				const retry = e2e.org('retry');
				const proxy = e2e.proxy;
				const { published } = await demoVersionsOf(retry.client);
				const credentialId = await e2e.credential('Training Lab retry', proxy.url, retry.api_key);
				const path = randomUUID();
				const rows = Array.from({ length: 20 }, (_, index) => ({ title: `Retried ${index + 1}` }));
				const start = webhookRows(path, rows);
				const id = await e2e.create({
					name: 'Bulk creation that fails half-way',
					nodes: [
						...start.nodes,
						createSessionNode(400, {
							title: '={{ $json.title }}',
							labVersion: published,
							capacity: 10,
							credential: { id: credentialId, name: 'Training Lab retry' },
						}),
					],
					connections: {
						...start.connections,
						Rows: { main: [[{ node: 'Create session', type: 'main', index: 0 }]] },
					},
					settings: { executionOrder: 'v1' },
				});
				await e2e.activate(id);

				// From the 11th create on, the API cannot be reached.
				let creates = 0;
				proxy.refuse = (req) => req.method === 'POST' && ++creates > 10;
				const url = `${e2e.n8n.webhookBase}/webhook/${path}`;
				await eventually(
					async () => (await fetch(url, { method: 'POST' })).ok,
					'the webhook',
					patiently(60_000),
				);
				const [failed] = await e2e.executions(
					id,
					(executions) => executions.length === 1 && executions[0].status === 'error',
				);
				const titles = async () =>
					(await retry.client.getAll('/sessions?limit=200')).items
						.map((session: { title: string }) => session.title)
						.sort();
				expect(await titles()).toEqual(
					rows
						.slice(0, 10)
						.map((row) => row.title)
						.sort(),
				);

				// The API is back; the execution is retried as a person does from the executions list.
				proxy.refuse = () => false;
				await e2e.client.api('POST', `/executions/${failed.id}/retry`, { loadWorkflow: false });
				const executions = await e2e.executions(
					id,
					(all) =>
						all.length === 2 &&
						all.every((execution) => !['new', 'running', 'waiting'].includes(execution.status)),
				);
				const retried = executions.find((execution) => execution.id !== failed.id)!;
				expect(retried.status).toBe('success');
				expect(e2e.topology.executors).toContain(e2e.executedBy(retried.id));
				expect(await titles()).toEqual(rows.map((row) => row.title).sort());
			}, 180_000);
		});
}
