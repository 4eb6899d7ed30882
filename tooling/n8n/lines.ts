/**
 * The n8n lines the package supports and the end-to-end suite runs against, and everything in which
 * they differ for the harness (measured with 1.123.81 and 2.41.1; ../shared/notes/n8n-headless.md).
 * Each line's n8n is pinned by test/e2e/n8n/<line>/package.json and its lockfile.
 */
export type N8nLine = '1.x' | '2.x';

export interface LineTraits {
	/** Environment every process of this line gets. */
	env: NodeJS.ProcessEnv;
	/** What tells that the main process serves its REST API. */
	readinessPath: string;
	/**
	 * How the owner account comes to be: from the environment (2.x: `N8N_INSTANCE_OWNER_*`) or
	 * through `POST /rest/owner/setup` once the main process is ready (1.x).
	 */
	owner: 'environment' | 'rest';
	/**
	 * Where credentials are created: the public API (2.x), or the editor's REST API (1.x: its public
	 * API's credential schema refuses this package's credential data).
	 */
	credentials: 'public-api' | 'rest';
	/**
	 * How activation ends: in the background, read from the publication status (2.x), or in the
	 * activate request itself (1.x).
	 */
	activation: 'background' | 'synchronous';
	/**
	 * Whether a readiness gate must also wait for the main process to log `STARTED_LOG_LINE` before
	 * it lets webhooks in (1.x: see `LINE_TRAITS`).
	 */
	webhooksAfterStart: boolean;
}

/** What the main process of either line logs once it has started. */
export const STARTED_LOG_LINE = 'Editor is now accessible via';

export const LINE_TRAITS: Record<N8nLine, LineTraits> = {
	'2.x': {
		env: {
			// Only 2.x knows this module; it starts a registry client nobody here needs.
			N8N_DISABLED_MODULES: 'mcp-registry',
			// Activation and deactivation go through an outbox polled every 15 s by default; poll faster.
			N8N_WORKFLOW_PUBLICATION_OUTBOX_POLL_INTERVAL_MS: '500',
			N8N_WORKFLOW_PUBLICATION_RECONCILE_INTERVAL_SECONDS: '2',
		},
		readinessPath: '/healthz/readiness',
		owner: 'environment',
		credentials: 'public-api',
		activation: 'background',
		webhooksAfterStart: false,
	},
	'1.x': {
		env: {
			// 1.x offers a community node as an AI tool only when this is set (2.x always does).
			N8N_COMMUNITY_PACKAGES_ALLOW_TOOL_USAGE: 'true',
		},
		// 1.x's readiness answers before its migrations and REST routes are done.
		readinessPath: '/rest/settings',
		owner: 'rest',
		credentials: 'rest',
		activation: 'synchronous',
		// 1.x serves webhooks while it starts, then runs every execution it finds not yet begun
		// (status "new") as one a crash had left (start.ts, runEnqueuedExecutions). An execution a
		// webhook has just created is one of them: it runs a second time under the same id and its
		// request is never answered (measured with 1.123.81: 7 of 7 such requests). 2.x claims such an
		// execution atomically (EnqueuedExecutionRecoveryService). Only the log tells that 1.x is past it.
		webhooksAfterStart: true,
	},
};
