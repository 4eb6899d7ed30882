import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NODE_TYPE, ROOT } from '../root.ts';

/** A node of a workflow a test builds, placed `x` to the right. */
export function workflowNode(name: string, type: string, x: number, extra: object) {
	return { id: randomUUID(), name, type, position: [x, 0], ...extra };
}

/** n8n's own Webhook node named "Webhook", for POSTs to `path`, answered as `responseMode` says. */
export function webhookNode(path: string, responseMode: 'onReceived' | 'lastNode') {
	return workflowNode('Webhook', 'n8n-nodes-base.webhook', 0, {
		typeVersion: 2,
		webhookId: path,
		parameters: { path, httpMethod: 'POST', responseMode },
	});
}

/** A Webhook at `path` (answered on receipt), then `nodes` one after the other. */
export function webhookChain(path: string, nodes: Array<{ name: string }>) {
	const connections: Record<string, object> = {};
	let previous = 'Webhook';
	for (const node of nodes) {
		connections[previous] = { main: [[{ node: node.name, type: 'main', index: 0 }]] };
		previous = node.name;
	}
	return { nodes: [webhookNode(path, 'onReceived'), ...nodes], connections };
}

/**
 * A Training Lab node named "Create session" (or `name`; Session → Create), placed `x` to the right:
 * `title` and `labVersion` (an id, or an expression giving one), with the credential `credential`;
 * `extra` adds node settings such as `onError`.
 */
export function createSessionNode(
	x: number,
	options: {
		title: string;
		labVersion: string;
		capacity: number;
		credential: { id: string; name: string };
		extra?: object;
		name?: string;
	},
) {
	return workflowNode(options.name ?? 'Create session', NODE_TYPE.trainingLab, x, {
		typeVersion: 1,
		...options.extra,
		parameters: {
			resource: 'session',
			operation: 'create',
			title: options.title,
			labVersion: { __rl: true, mode: 'id', value: options.labVersion },
			capacity: options.capacity,
			additionalFields: {},
		},
		credentials: { trainingLabApi: options.credential },
	});
}

/**
 * The start of a workflow a test builds: a Webhook at `path` (answered on receipt) and a Code node
 * named "Rows" that turns `rows` into items — or, with `'from the request'`, the request body's `rows`.
 */
export function webhookRows(path: string, rows: object[] | 'from the request') {
	const jsCode =
		rows === 'from the request'
			? 'return $json.body.rows.map((json) => ({ json }));'
			: `return ${JSON.stringify(rows.map((json) => ({ json })))};`;
	return {
		nodes: [
			webhookNode(path, 'onReceived'),
			workflowNode('Rows', 'n8n-nodes-base.code', 200, {
				typeVersion: 2,
				parameters: { jsCode },
			}),
		],
		connections: { Webhook: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] } },
	};
}

/** An example workflow of examples/, with its placeholders filled in. */
export function example(name: string, replacements: Record<string, string>): any {
	let text = readFileSync(join(ROOT, 'examples', `${name}.json`), 'utf8');
	for (const [placeholder, value] of Object.entries(replacements))
		text = text.split(placeholder).join(value);
	return JSON.parse(text);
}
