/**
 * The n8n versions the end-to-end suites install the package into, each pinned by
 * test/e2e/n8n/<pin>/package.json and its lockfile: the newest and the oldest supported release of
 * each line. And everything in which they differ, for the harness and for what a user sees (measured
 * with each pinned version; ../shared/notes/n8n-headless.md).
 */
export type N8nLine = '1.x' | '2.x';

/**
 * `2.x`, `1.x`: the newest release of the line; `…-oldest`: the oldest the package supports;
 * `latest`: n8n's newest release that day, unpinned (the weekly compatibility job).
 */
export type N8nPin = '2.x' | '1.x' | '2.x-oldest' | '1.x-oldest' | 'latest';

export interface N8nTraits {
	line: N8nLine;
	/** Environment every process of this version gets. */
	env: NodeJS.ProcessEnv;
	/** What tells that the main process serves its REST API. */
	readinessPath: string;
	/**
	 * How the owner account comes to be: from the environment (`N8N_INSTANCE_OWNER_*`, 2.41) or
	 * through `POST /rest/owner/setup` once the main process is ready.
	 */
	owner: 'environment' | 'rest';
	/**
	 * Where credentials are created: the public API (2.41), or the editor's REST API (the others'
	 * public API refuses this package's credential data).
	 */
	credentials: 'public-api' | 'rest';
	/**
	 * How activation ends: in the background, read from the publication status (2.41), or in the
	 * activate request itself.
	 */
	activation: 'background' | 'synchronous';
	/** Where a person's retry of an execution goes: the public API (2.41) or the editor's REST API. */
	retry: 'public-api' | 'rest';
	/**
	 * Whether a readiness gate must also wait for the main process to log `STARTED_LOG_LINE` before
	 * it lets webhooks in (1.x: see `enqueuedAtStart`).
	 */
	webhooksAfterStart: boolean;
	/**
	 * What n8n does at start with the executions it had enqueued but not begun (status "new") when it
	 * died: runs them (2.41 claims each atomically; 1.x runs every "new" one it finds, also one a
	 * webhook has just created during the start, which then runs twice and is never answered:
	 * measured with 1.123.81, 7 of 7), or leaves them "new" for good (2.6.4; a retry answers 409).
	 */
	enqueuedAtStart: 'run' | 'left';
	/**
	 * An AI Agent's tool whose node stops on error: n8n hands the error to the model (2.41), or ends
	 * the agent's execution with it.
	 */
	toolErrors: 'to the model' | 'end the execution';
	/** How n8n's credential test words a refused connection. */
	connectionRefused: string;
	/**
	 * Whether requests that write must reach n8n one at a time: 1.x keeps SQLite on one connection
	 * (`DB_SQLITE_POOL_SIZE` 0), and two writes at once interleave their transactions ("no such
	 * savepoint", "cannot commit - no transaction is active": measured with 1.123.81). 2.x pools it.
	 */
	writesOneAtATime: boolean;
}

/** What the main process of every version logs once it has started. */
export const STARTED_LOG_LINE = 'Editor is now accessible via';

const NEWEST_2X: N8nTraits = {
	line: '2.x',
	env: {
		// A module the newer 2.x start (a registry client nobody here needs); older versions exit on it.
		N8N_DISABLED_MODULES: 'mcp-registry',
		// Activation and deactivation go through an outbox polled every 15 s by default; poll faster.
		N8N_WORKFLOW_PUBLICATION_OUTBOX_POLL_INTERVAL_MS: '500',
		N8N_WORKFLOW_PUBLICATION_RECONCILE_INTERVAL_SECONDS: '2',
	},
	readinessPath: '/healthz/readiness',
	owner: 'environment',
	credentials: 'public-api',
	activation: 'background',
	retry: 'public-api',
	webhooksAfterStart: false,
	enqueuedAtStart: 'run',
	toolErrors: 'to the model',
	connectionRefused: 'ECONNREFUSED',
	writesOneAtATime: false,
};

const NEWEST_1X: N8nTraits = {
	line: '1.x',
	env: {
		// 1.x offers a community node as an AI tool only when this is set (2.x always does).
		N8N_COMMUNITY_PACKAGES_ALLOW_TOOL_USAGE: 'true',
	},
	// Its readiness answers before its migrations and REST routes are done.
	readinessPath: '/rest/settings',
	owner: 'rest',
	credentials: 'rest',
	activation: 'synchronous',
	retry: 'rest',
	webhooksAfterStart: true,
	enqueuedAtStart: 'run',
	toolErrors: 'end the execution',
	connectionRefused: 'The service refused the connection - perhaps it is offline',
	writesOneAtATime: true,
};

export const PINS: Record<N8nPin, N8nTraits> = {
	'2.x': NEWEST_2X,
	'1.x': NEWEST_1X,
	'2.x-oldest': {
		...NEWEST_1X,
		line: '2.x',
		env: {},
		webhooksAfterStart: false,
		enqueuedAtStart: 'left',
		writesOneAtATime: false,
	},
	'1.x-oldest': NEWEST_1X,
	// Until a newer release shows otherwise, it behaves as the newest pinned one.
	latest: NEWEST_2X,
};
