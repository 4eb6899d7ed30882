import type { Agent } from 'undici';

/**
 * Sends the test file's `fetch` requests through `agent`, unless a request names its own dispatcher.
 *
 * jest runs each test file in a realm of its own, but its `fetch` is Node's, which reads its global
 * dispatcher from the main realm: undici's `setGlobalDispatcher`, called in a setup file, sets the
 * test realm's and never reaches it. So the agent goes in each request's options.
 */
export function fetchThrough(agent: Agent): void {
	const nodeFetch = globalThis.fetch;
	globalThis.fetch = ((input, init) =>
		nodeFetch(input, { dispatcher: agent, ...init } as RequestInit)) as typeof fetch;
}
