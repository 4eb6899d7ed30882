/**
 * Every size and range the API enforces, in one place: the zod schemas, the router, the OpenAPI
 * document and the database's own checks (migration 4) all follow these.
 */
export const BOUNDS = {
	/** Names and titles, after trimming. */
	name: { min: 1, max: 200 },
	email: { max: 254 },
	capacity: { min: 1, max: 1000 },
	webhookUrl: { max: 2048 },
	webhookDescription: { max: 1000 },
	/** `limit` of every list. */
	pageSize: { min: 1, max: 200 },
	idempotencyKey: { min: 1, max: 255 },
	/**
	 * Webhook endpoints of one organization, enabled or disabled, held ones aside: GitHub allows 20
	 * per target, Stripe 16.
	 */
	webhookEndpoints: { max: 20 },
	/**
	 * Held endpoints (their receiver away) an organization keeps, and for how long: beyond either, the
	 * one held longest is deleted, so that endpoints of workflows deleted in n8n do not pile up.
	 */
	heldWebhookEndpoints: { max: 100, days: 30 },
	/**
	 * Readers of the activity log whose position the API keeps (`/orgs/{orgId}/event-consumers`): how
	 * many an organization may have, how long one that stopped reading is kept, the size of a batch,
	 * how many batches may be open (handed out, not yet done) and how many a reader may say it is
	 * still working on.
	 */
	eventConsumers: {
		max: 500,
		idleDays: 30,
		batchSize: { default: 100, max: 1000 },
		openBatches: { max: 100 },
		inProgress: { max: 1000 },
	},
} as const;
