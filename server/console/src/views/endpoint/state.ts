import type { Webhook } from '../../types.ts';

/** What the endpoint page knows and the person chose, in one place: every part reads it from here. */
export interface EndpointPageState {
	/** The path parameters of the endpoint. */
	readonly path: { orgId: string; webhookId: string };
	/** The endpoint as last read: after each change here, and at each live update. */
	webhook: Webhook;
	/** The deliveries' filters, as the API takes them (`status`, `event_type`, `test`). */
	filters: Record<string, string>;
	/** Older pages are shown: live updates of the list wait (they would drop them). */
	olderLoaded: boolean;
	/** When the endpoint was disabled before a person enabled it here: where a recovery starts. */
	enabledAfter: string | null;
}
