import { eventually } from '../eventually.ts';
import { PINS, type N8nPin } from './pins.ts';
import { OWNER, patiently } from './processes.ts';

/** An execution as n8n's public API lists it (with its data). */
export interface Execution {
	id: string;
	status: string;
	startedAt: string;
	stoppedAt?: string | null;
	data: any;
}

/** Where n8n 2.41's background publication of a workflow stands. */
interface PublicationStatus {
	status: string;
	liveVersionId: string | null;
	triggers: Array<{ status: string; errorMessage: string | null }>;
}

/** Each n8n's writes still under way, by its URL, where its pin takes them one at a time. */
const writesUnderWay = new Map<string, Promise<unknown>>();

/** n8n's HTTP APIs: the internal REST API with the owner's session cookie, the public API with an API key. */
export class N8nClient {
	readonly url: string;
	readonly pin: N8nPin;
	#cookie = '';
	#apiKey = '';
	#apiKeyId = '';

	constructor(n8n: { url: string; pin: N8nPin }) {
		this.url = n8n.url;
		this.pin = n8n.pin;
	}

	/** Logs in as the owner (by default the one the harness sets up) and makes a public-API key. */
	async login(email = OWNER.email, password = OWNER.password): Promise<void> {
		const response = await fetch(`${this.url}/rest/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ emailOrLdapLoginId: email, password }),
		});
		if (!response.ok)
			throw new Error(`n8n login failed: ${response.status} ${await response.text()}`);
		this.#cookie = response.headers
			.getSetCookie()
			.map((cookie) => cookie.split(';')[0])
			.join('; ');
		const scopes = (await this.rest('GET', '/rest/api-keys/scopes')) as string[];
		const created = (await this.rest('POST', '/rest/api-keys', {
			label: `traininglab harness ${new Date().toISOString()}`,
			scopes,
			expiresAt: null,
		})) as { id: string; rawApiKey: string };
		this.#apiKey = created.rawApiKey;
		this.#apiKeyId = created.id;
	}

	/** Deletes the public-API key `login` made (an n8n that lives on, as `npm run dev`'s, keeps none). */
	async logout(): Promise<void> {
		if (this.#apiKeyId) await this.rest('DELETE', `/rest/api-keys/${this.#apiKeyId}`);
		this.#apiKeyId = '';
	}

	/**
	 * Sends a request and reads its answer; a write waits for the writes before it where this n8n
	 * takes them one at a time.
	 */
	async #request(
		method: string,
		url: string,
		init: { headers: Record<string, string>; body?: string },
	): Promise<{ ok: boolean; status: number; text: string }> {
		const send = async () => {
			try {
				const response = await fetch(url, { method, ...init });
				return { ok: response.ok, status: response.status, text: await response.text() };
			} catch (error) {
				// fetch's own error names neither the request nor, in its stack, the caller.
				const cause = (error as Error & { cause?: Error }).cause?.message ?? String(error);
				throw new Error(`n8n ${method} ${url}: ${cause}`, { cause: error });
			}
		};
		if (method === 'GET' || !PINS[this.pin].writesOneAtATime) return await send();
		const answered = (writesUnderWay.get(this.url) ?? Promise.resolve()).then(send);
		writesUnderWay.set(
			this.url,
			answered.catch(() => undefined),
		);
		return await answered;
	}

	async rest(method: string, path: string, body?: unknown): Promise<unknown> {
		const response = await this.#request(method, `${this.url}${path}`, {
			headers: { cookie: this.#cookie, ...(body ? { 'content-type': 'application/json' } : {}) },
			body: body ? JSON.stringify(body) : undefined,
		});
		const text = response.text;
		if (!response.ok) throw new Error(`n8n ${method} ${path} → ${response.status}: ${text}`);
		try {
			return (JSON.parse(text) as { data: unknown }).data;
		} catch {
			throw new Error(
				`n8n ${method} ${path} → ${response.status}, not JSON: ${text.slice(0, 500)}`,
			);
		}
	}

	/** A JSON document the editor loads (e.g. `/types/nodes.json`), with the owner's session. */
	async editorJson<T = any>(path: string): Promise<T> {
		const response = await this.#request('GET', `${this.url}${path}`, {
			headers: { cookie: this.#cookie },
		});
		if (!response.ok)
			throw new Error(`n8n GET ${path} → ${response.status}: ${response.text.slice(0, 500)}`);
		return JSON.parse(response.text) as T;
	}

	async api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
		const response = await this.#request(method, `${this.url}/api/v1${path}`, {
			headers: {
				'x-n8n-api-key': this.#apiKey,
				...(body ? { 'content-type': 'application/json' } : {}),
			},
			body: body ? JSON.stringify(body) : undefined,
		});
		const text = response.text;
		if (!response.ok) throw new Error(`n8n API ${method} ${path} → ${response.status}: ${text}`);
		return (text ? JSON.parse(text) : undefined) as T;
	}

	/** Stores a credential: through the public API, or where that n8n's refuses ours, the editor's REST API. */
	async createCredential(
		name: string,
		type: string,
		data: Record<string, unknown>,
	): Promise<{ id: string }> {
		if (PINS[this.pin].credentials === 'public-api')
			return await this.api('POST', '/credentials', { name, type, data });
		return (await this.rest('POST', '/rest/credentials', { name, type, data })) as { id: string };
	}

	/**
	 * Activates a workflow and returns once n8n has: at once where activation answers when done (1.x,
	 * 2.6), else when its background publication has ended (2.41). Throws with the triggers' errors if it failed.
	 */
	async activate(workflowId: string): Promise<void> {
		const failure = await this.#activateAndReadFailure(workflowId);
		if (failure !== undefined) throw new Error(`n8n could not activate the workflow: ${failure}`);
	}

	/**
	 * Activates a workflow whose trigger is expected to fail to start, and returns what n8n tells the
	 * user: the trigger's error in the publication status (2.41 publishes in the background), or the
	 * activate request's answer.
	 */
	async activationFailure(workflowId: string): Promise<string> {
		const failure = await this.#activateAndReadFailure(workflowId);
		if (failure === undefined) throw new Error('n8n activated the workflow');
		return failure;
	}

	/**
	 * Saves a change to a workflow as n8n's editor does (`PATCH /rest/workflows/{id}` with the whole
	 * workflow), and on 2.x publishes it (`POST /rest/workflows/{id}/activate` with the saved version,
	 * the editor's Publish). Returns once n8n has put the saved version live.
	 */
	async saveAndPublish(workflowId: string, change: (workflow: any) => void): Promise<void> {
		const workflow = (await this.rest('GET', `/rest/workflows/${workflowId}`)) as any;
		change(workflow);
		const { name, nodes, connections, settings, versionId } = workflow;
		const saved = (await this.rest('PATCH', `/rest/workflows/${workflowId}`, {
			name,
			nodes,
			connections,
			settings,
			versionId,
		})) as { versionId: string };
		if (PINS[this.pin].line === '1.x') return; // 1.x puts a saved active workflow live itself
		await this.rest('POST', `/rest/workflows/${workflowId}/activate`, {
			versionId: saved.versionId,
		});
		if (PINS[this.pin].activation === 'background')
			await this.#publication(workflowId, (status) => status.liveVersionId === saved.versionId);
	}

	/**
	 * Deletes a workflow as a person does in n8n 2.x's editor: archive it (which unpublishes it), then
	 * delete it once n8n has unpublished it.
	 */
	async archiveAndDelete(workflowId: string): Promise<void> {
		await this.rest('POST', `/rest/workflows/${workflowId}/archive`, {});
		await eventually(
			async () => (await this.rest('DELETE', `/rest/workflows/${workflowId}`)) === true,
			'n8n to unpublish and delete the workflow',
			patiently(60_000),
		);
	}

	async #activateAndReadFailure(workflowId: string): Promise<string | undefined> {
		if (PINS[this.pin].activation === 'synchronous') {
			try {
				await this.api('POST', `/workflows/${workflowId}/activate`);
				return undefined;
			} catch (error) {
				if (!/→ 4\d\d:/.test((error as Error).message)) throw error;
				return (error as Error).message;
			}
		}
		await this.api('POST', `/workflows/${workflowId}/activate`);
		const outcome = await this.#publication(
			workflowId,
			(status) => status.status !== 'not_published',
		);
		const failed = outcome.triggers.filter((trigger) => trigger.status === 'failed');
		if (outcome.status !== 'failed' && failed.length === 0) return undefined;
		return failed.map((trigger) => trigger.errorMessage).join('\n') || JSON.stringify(outcome);
	}

	/** Waits until n8n 2.41's background publication of the workflow has ended, as `done` says. */
	async #publication(
		workflowId: string,
		done: (status: PublicationStatus) => boolean,
	): Promise<PublicationStatus> {
		return await eventually(
			async () => {
				const status = (await this.rest(
					'GET',
					`/rest/workflows/${workflowId}/publication-status`,
				)) as PublicationStatus;
				return status.status !== 'in_progress' && done(status) && status;
			},
			'n8n to finish publishing the workflow',
			patiently(120_000),
		);
	}

	/** Executions of a workflow with their data, newest first. */
	async executions(workflowId: string): Promise<Execution[]> {
		const page = await this.api<{ data: Execution[] }>(
			'GET',
			`/executions?workflowId=${workflowId}&includeData=true&limit=50`,
		);
		return page.data;
	}

	/** The workflow's executions running now (without their data: quick to ask for). */
	async runningExecutions(workflowId: string): Promise<Array<{ id: string }>> {
		const page = await this.api<{ data: Array<{ id: string }> }>(
			'GET',
			`/executions?workflowId=${workflowId}&status=running&limit=50`,
		);
		return page.data;
	}
}
