import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One call the scripted model makes: a tool (by the name n8n gives it) and its arguments. */
export interface ScriptedCall {
	tool: string;
	args: Record<string, unknown>;
}

interface ChatMessage {
	role: string;
	content?: string | Array<{ type: string; text?: string }> | null;
	tool_call_id?: string;
}

/**
 * An OpenAI-compatible chat-completions server on loopback that plays a model from a script, for
 * n8n's AI Agent with the OpenAI Chat Model node: no network and no real model.
 *
 * The user's message carries the script after `SCRIPT:` (a JSON array of calls). The first answer
 * asks for every call at once (parallel tool calls, as models do); once the tool results are in,
 * the answer is `RESULTS:` followed by the JSON of every tool result, in call order, so the test
 * reads what the model was given. Every request is recorded.
 */
export class ScriptedModel {
	readonly requests: Array<{
		messages: ChatMessage[];
		tools: Array<{ function: { name: string } }>;
	}> = [];
	url = '';
	#server: Server;

	private constructor() {
		this.#server = createServer((req, res) => {
			void this.#answer(req, res).catch((error: Error) => {
				res.writeHead(500, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ error: { message: error.message } }));
			});
		});
	}

	static async start(): Promise<ScriptedModel> {
		const model = new ScriptedModel();
		await new Promise<void>((resolve) => model.#server.listen(0, '127.0.0.1', resolve));
		model.url = `http://127.0.0.1:${(model.#server.address() as AddressInfo).port}/v1`;
		return model;
	}

	async stop(): Promise<void> {
		this.#server.closeAllConnections();
		await new Promise((resolve) => this.#server.close(resolve));
	}

	async #answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
			res.writeHead(404, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ error: { message: `No route ${req.method} ${req.url}` } }));
			return;
		}
		const request = JSON.parse(Buffer.concat(chunks).toString('utf8'));
		this.requests.push({ messages: request.messages, tools: request.tools ?? [] });
		const messages = request.messages as ChatMessage[];
		const results = messages.filter((message) => message.role === 'tool');
		const reply =
			results.length > 0
				? { content: `RESULTS:${JSON.stringify(results.map((result) => textOf(result)))}` }
				: { calls: scriptOf(messages) };
		if (request.stream) streamReply(res, request.model, reply);
		else sendReply(res, request.model, reply);
	}
}

function textOf(message: ChatMessage): string {
	if (typeof message.content === 'string') return message.content;
	return (message.content ?? []).map((part) => part.text ?? '').join('');
}

function scriptOf(messages: ChatMessage[]): ScriptedCall[] {
	const user = messages.filter((message) => message.role === 'user').at(-1);
	const text = user ? textOf(user) : '';
	const script = /SCRIPT:(\[.*\])/s.exec(text)?.[1];
	return script ? (JSON.parse(script) as ScriptedCall[]) : [];
}

type Reply = { content: string } | { calls: ScriptedCall[] };

const toolCalls = (calls: ScriptedCall[]) =>
	calls.map((call, index) => ({
		index,
		id: `call_${index + 1}`,
		type: 'function',
		function: { name: call.tool, arguments: JSON.stringify(call.args) },
	}));

function sendReply(res: ServerResponse, model: string, reply: Reply): void {
	const message =
		'content' in reply
			? { role: 'assistant', content: reply.content }
			: {
					role: 'assistant',
					content: null,
					tool_calls: toolCalls(reply.calls).map(({ index: _index, ...call }) => call),
				};
	res.writeHead(200, { 'content-type': 'application/json' });
	res.end(
		JSON.stringify({
			id: 'chatcmpl-scripted',
			object: 'chat.completion',
			created: Math.floor(Date.now() / 1000),
			model,
			choices: [
				{
					index: 0,
					message,
					finish_reason: 'content' in reply ? 'stop' : 'tool_calls',
				},
			],
			usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
		}),
	);
}

function streamReply(res: ServerResponse, model: string, reply: Reply): void {
	res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
	const chunk = (delta: object, finish: string | null) =>
		res.write(
			`data: ${JSON.stringify({
				id: 'chatcmpl-scripted',
				object: 'chat.completion.chunk',
				created: Math.floor(Date.now() / 1000),
				model,
				choices: [{ index: 0, delta, finish_reason: finish }],
			})}\n\n`,
		);
	if ('content' in reply) {
		chunk({ role: 'assistant', content: reply.content }, null);
		chunk({}, 'stop');
	} else {
		chunk({ role: 'assistant', content: null, tool_calls: toolCalls(reply.calls) }, null);
		chunk({}, 'tool_calls');
	}
	res.end('data: [DONE]\n\n');
}
