import type { Database } from 'better-sqlite3';

export interface WebhookRow {
	seq: number;
	id: string;
	org_id: string;
	url: string;
	/** JSON array text */
	event_types: string;
	description: string | null;
	secret: string;
	created_at: string;
	disabled_at: string | null;
	/** Since when its deliveries are held (its receiver said it is away); null while they are sent. */
	held_since: string | null;
	/** Why the server held it itself; null when its receiver or a person did, and while not held. */
	held_reason: string | null;
	/** When it was last released from a hold; null if it never was. */
	released_at: string | null;
	/** 1: only a 2xx answer with the delivery's receipt counts as delivered. */
	require_receipt: number;
	/** The secret a rotation replaced, which deliveries are signed with too until it expires. */
	previous_secret: string | null;
	/** Unix ms. */
	previous_secret_expires_at: number | null;
}
type NewWebhook = Omit<
	WebhookRow,
	| 'seq'
	| 'disabled_at'
	| 'held_since'
	| 'held_reason'
	| 'released_at'
	| 'previous_secret'
	| 'previous_secret_expires_at'
>;
type WebhookChange = Pick<
	WebhookRow,
	| 'id'
	| 'url'
	| 'event_types'
	| 'description'
	| 'disabled_at'
	| 'held_since'
	| 'held_reason'
	| 'released_at'
	| 'require_receipt'
>;

export class WebhookRepository {
	readonly #insert;
	readonly #find;
	readonly #findByUrl;
	readonly #countSending;
	readonly #heldLongestFirst;
	readonly #heldBefore;
	readonly #page;
	readonly #delete;
	readonly #disable;
	readonly #holdFor;
	readonly #update;
	readonly #rotateSecret;

	constructor(db: Database) {
		this.#insert = db.prepare<NewWebhook>(
			`INSERT INTO webhooks (id, org_id, url, event_types, description, secret, created_at, require_receipt)
       VALUES (@id, @org_id, @url, @event_types, @description, @secret, @created_at, @require_receipt)`,
		);
		this.#find = db.prepare<[string, string], WebhookRow>(
			'SELECT * FROM webhooks WHERE org_id = ? AND id = ?',
		);
		this.#findByUrl = db.prepare<[string, string], WebhookRow>(
			'SELECT * FROM webhooks WHERE org_id = ? AND url = ?',
		);
		this.#countSending = db
			.prepare<
				[string],
				number
			>('SELECT count(*) FROM webhooks WHERE org_id = ? AND held_since IS NULL')
			.pluck();
		this.#heldLongestFirst = db.prepare<[string], WebhookRow>(
			'SELECT * FROM webhooks WHERE org_id = ? AND held_since IS NOT NULL ORDER BY held_since, seq',
		);
		this.#heldBefore = db.prepare<[string], WebhookRow>(
			'SELECT * FROM webhooks WHERE held_since IS NOT NULL AND held_since < ? ORDER BY held_since',
		);
		this.#page = db.prepare<[string, number, number], WebhookRow>(
			'SELECT * FROM webhooks WHERE org_id = ? AND seq > ? ORDER BY seq LIMIT ?',
		);
		this.#delete = db.prepare<[string]>('DELETE FROM webhooks WHERE id = ?');
		this.#disable = db.prepare<[string, string]>(
			'UPDATE webhooks SET disabled_at = ? WHERE id = ? AND disabled_at IS NULL',
		);
		this.#holdFor = db.prepare<[string, string, string]>(
			`UPDATE webhooks SET held_since = ?, held_reason = ?
       WHERE id = ? AND held_since IS NULL AND disabled_at IS NULL`,
		);
		this.#update = db.prepare<WebhookChange>(
			`UPDATE webhooks SET url = @url, event_types = @event_types, description = @description,
         disabled_at = @disabled_at, held_since = @held_since, held_reason = @held_reason,
         released_at = @released_at, require_receipt = @require_receipt
       WHERE id = @id`,
		);
		this.#rotateSecret = db.prepare<{ id: string; secret: string; expires_at: number | null }>(
			`UPDATE webhooks SET previous_secret = CASE WHEN @expires_at IS NULL THEN NULL ELSE secret END,
         previous_secret_expires_at = @expires_at, secret = @secret
       WHERE id = @id`,
		);
	}

	/**
	 * Replaces the signing secret; the one replaced goes on signing deliveries until `expiresAt`
	 * (Unix ms), or stops at once when it is null. An earlier previous secret stops at once.
	 */
	rotateSecret(webhookId: string, secret: string, expiresAt: number | null): void {
		this.#rotateSecret.run({ id: webhookId, secret, expires_at: expiresAt });
	}

	insert(webhook: NewWebhook): void {
		this.#insert.run(webhook);
	}

	/** The organization's endpoints that are not held: those the endpoint limit counts. */
	countSending(orgId: string): number {
		return this.#countSending.get(orgId)!;
	}

	/** The organization's held endpoints, the one held longest first. */
	heldLongestFirst(orgId: string): WebhookRow[] {
		return this.#heldLongestFirst.all(orgId);
	}

	/** Every organization's endpoints held since before `before` (an API timestamp). */
	heldBefore(before: string): WebhookRow[] {
		return this.#heldBefore.all(before);
	}

	find(orgId: string, webhookId: string): WebhookRow | undefined {
		return this.#find.get(orgId, webhookId);
	}

	findByUrl(orgId: string, url: string): WebhookRow | undefined {
		return this.#findByUrl.get(orgId, url);
	}

	page(orgId: string, afterSeq: number, limit: number): WebhookRow[] {
		return this.#page.all(orgId, afterSeq, limit);
	}

	/** Deletes the endpoint and, by cascade, its deliveries. */
	delete(webhookId: string): void {
		this.#delete.run(webhookId);
	}

	update(change: WebhookChange): void {
		this.#update.run(change);
	}

	/** Holds an enabled endpoint, as the server does on its own, saying why; true when this call held it. */
	holdFor(webhookId: string, heldSince: string, reason: string): boolean {
		return this.#holdFor.run(heldSince, reason, webhookId).changes > 0;
	}

	/** True when this call disabled it (false: it was disabled already). */
	disable(webhookId: string, disabledAt: string): boolean {
		return this.#disable.run(disabledAt, webhookId).changes > 0;
	}
}
