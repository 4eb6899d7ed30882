import { isoAt } from '../core/clock.ts';
import { ApiError } from '../core/errors.ts';
import { pageOf, type Page, type PageRequest } from '../core/paging.ts';
import { systemActor, type Actor } from '../core/actor.ts';
import { webhookUrlProblem, type UrlPolicyOptions } from '../lib/network-policy.ts';
import { generateWebhookSecret } from '../lib/webhook-secret.ts';
import type { WebhookRow } from '../repositories/webhooks.ts';
import { BOUNDS } from '../schemas/bounds.ts';
import type { EventData } from '../schemas/events.ts';
import type {
	Webhook,
	WebhookCreate,
	WebhookCreated,
	WebhookSecretRotated,
	WebhookUpdate,
} from '../schemas/webhooks.ts';
import { DEFAULT_SECRET_OVERLAP_MS, MAX_SECRET_OVERLAP_MS } from '../schemas/webhooks.ts';
import { DomainService, type ServiceDeps } from './domain-service.ts';
import { findEndpoint, toWebhook } from './endpoint-lookup.ts';

/**
 * A webhook endpoint's life: created, changed, disabled and enabled, held and released by its
 * receiver, its secret rotated, deleted (by a person, or by the server once held too long).
 */
export class WebhookEndpointService extends DomainService {
	readonly #allowInsecureUrls: boolean;
	readonly #urlPolicy: UrlPolicyOptions;

	constructor(
		deps: ServiceDeps,
		options: { allowInsecureUrls: boolean; urlPolicy: UrlPolicyOptions },
	) {
		super(deps);
		this.#allowInsecureUrls = options.allowInsecureUrls;
		this.#urlPolicy = options.urlPolicy;
	}

	list(orgId: string, page: PageRequest): Page<Webhook> {
		return pageOf(
			page,
			'ascending',
			(after, limit) => this.repos.webhooks.page(orgId, after, limit),
			(row) => toWebhook(this.clock.now(), row),
		);
	}

	/** The SSRF guard; it resolves the host, so it runs before (outside) the create transaction. */
	async assertUrlAllowed(url: string): Promise<void> {
		if (this.#allowInsecureUrls) return;
		const problem = await webhookUrlProblem(url, this.#urlPolicy);
		if (problem)
			throw new ApiError('validation_failed', problem, [{ path: 'url', message: problem }]);
	}

	create(actor: Actor, input: WebhookCreate): WebhookCreated {
		return this.transaction(() => {
			if (this.repos.webhooks.findByUrl(actor.orgId, input.url)) {
				throw new ApiError('url_taken', `A webhook endpoint for ${input.url} already exists.`);
			}
			this.#assertRoomFor(actor.orgId);
			const row = {
				id: this.newId(),
				org_id: actor.orgId,
				url: input.url,
				event_types: JSON.stringify(input.event_types),
				description: input.description ?? null,
				secret: generateWebhookSecret(),
				created_at: this.nowIso(),
				require_receipt: input.require_receipt ? 1 : 0,
			};
			this.repos.webhooks.insert(row);
			const webhook = toWebhook(this.clock.now(), {
				...row,
				seq: 0,
				disabled_at: null,
				held_since: null,
				held_reason: null,
				released_at: null,
				previous_secret: null,
				previous_secret_expires_at: null,
			});
			this.events.record(actor, 'webhook.created', {
				webhook_id: webhook.id,
				url: webhook.url,
				event_types: webhook.event_types,
			});
			return { ...webhook, secret: row.secret };
		});
	}

	get(orgId: string, webhookId: string): Webhook {
		return toWebhook(this.clock.now(), findEndpoint(this.repos, orgId, webhookId));
	}

	/**
	 * Changes what is given of url, event types, description, whether it is disabled or held and
	 * whether it requires receipts, and records `webhook.updated` with each change from and to.
	 * Disabling gives up its open deliveries; while disabled, what it subscribes to is kept as
	 * given-up deliveries. Enabling sends nothing by itself: a recovery sends what was given up.
	 * Holding keeps its deliveries unsent; releasing sends them (or gives up, with `skip_held_events`,
	 * those of events that happened meanwhile). A request that changes nothing records nothing.
	 */
	update(actor: Actor, webhookId: string, input: WebhookUpdate): Webhook {
		return this.transaction(() => {
			const row = findEndpoint(this.repos, actor.orgId, webhookId);
			const before = toWebhook(this.clock.now(), row);
			const changes: EventData<'webhook.updated'>['changes'] = {};
			const url = input.url ?? row.url;
			if (url !== row.url) {
				if (this.repos.webhooks.findByUrl(actor.orgId, url))
					throw new ApiError('url_taken', `A webhook endpoint for ${url} already exists.`);
				changes.url = { from: row.url, to: url };
			}
			const eventTypes = input.event_types ?? before.event_types;
			if (!sameSet(eventTypes, before.event_types))
				changes.event_types = { from: before.event_types, to: eventTypes };
			const description =
				input.description === undefined ? row.description : input.description || null;
			if (description !== row.description)
				changes.description = { from: row.description, to: description };
			const disabled = input.disabled ?? row.disabled_at !== null;
			if (disabled !== (row.disabled_at !== null))
				changes.disabled = { from: !disabled, to: disabled };
			const held = input.held ?? row.held_since !== null;
			if (held !== (row.held_since !== null)) changes.held = { from: !held, to: held };
			const requireReceipt = input.require_receipt ?? row.require_receipt === 1;
			if (requireReceipt !== (row.require_receipt === 1))
				changes.require_receipt = { from: !requireReceipt, to: requireReceipt };
			if (Object.keys(changes).length === 0) return before;

			const released = changes.held !== undefined && !held;
			if (released) this.#assertRoomFor(actor.orgId);
			const changed = {
				id: row.id,
				url,
				event_types: JSON.stringify(eventTypes),
				description,
				disabled_at: disabled ? (row.disabled_at ?? this.nowIso()) : null,
				held_since: held ? (row.held_since ?? this.nowIso()) : null,
				// A hold asked for through the API has no reason of the server's.
				held_reason: held && !changes.held ? row.held_reason : null,
				released_at: released ? this.nowIso() : row.released_at,
				require_receipt: requireReceipt ? 1 : 0,
			};
			this.repos.webhooks.update(changed);
			if (disabled && !row.disabled_at) {
				this.repos.outbox.recoveries.end(row.id);
				this.repos.outbox.queue.giveUpOpenOfWebhook(row.id, `Endpoint disabled by ${actor.email}.`);
			}
			let skipped: number | undefined;
			if (released && input.skip_held_events)
				skipped = this.repos.outbox.queue.skipHeld(
					row.id,
					row.held_since!,
					`Skipped: it happened while the endpoint was held, and ${actor.email} released it without it. A recovery sends it.`,
				);
			if (released) this.outbox.deliveriesQueued();
			this.events.record(actor, 'webhook.updated', {
				webhook_id: row.id,
				url,
				changes,
				...(skipped === undefined ? {} : { skipped }),
			});
			if (changes.held && held) this.#deleteHeldBeyondBound(actor.orgId);
			return toWebhook(this.clock.now(), { ...row, ...changed });
		});
	}

	/**
	 * Deletes every endpoint held for longer than the bound allows (its receiver, such as an n8n
	 * workflow, most likely gone), with what it kept, recording `webhook.deleted` with the reason.
	 * The server runs it hourly. Returns how many it deleted.
	 */
	deleteLongHeld(): number {
		const { days } = BOUNDS.heldWebhookEndpoints;
		const before = isoAt(this.clock.now() - days * 24 * 60 * 60 * 1000);
		return this.transaction(() => {
			const expired = this.repos.webhooks.heldBefore(before);
			for (const webhook of expired)
				this.#deleteRecorded(
					systemActor(webhook.org_id),
					webhook,
					`Held for ${days} days: its receiver did not come back.`,
				);
			return expired.length;
		});
	}

	/** Deletes the endpoint; its pending deliveries go with it. */
	delete(actor: Actor, webhookId: string): void {
		this.transaction(() =>
			this.#deleteRecorded(actor, findEndpoint(this.repos, actor.orgId, webhookId), null),
		);
	}

	/** The organization may have one more endpoint that is not held. */
	#assertRoomFor(orgId: string): void {
		const { max } = BOUNDS.webhookEndpoints;
		if (this.repos.webhooks.countSending(orgId) >= max) {
			throw new ApiError(
				'webhook_limit_reached',
				`This organization already has ${max} webhook endpoints that are not held, the most it may have. Delete one it no longer needs first.`,
			);
		}
	}

	/** Deletes the held endpoints beyond the number an organization keeps, the one held longest first. */
	#deleteHeldBeyondBound(orgId: string): void {
		const { max } = BOUNDS.heldWebhookEndpoints;
		const held = this.repos.webhooks.heldLongestFirst(orgId);
		for (const webhook of held.slice(0, Math.max(0, held.length - max)))
			this.#deleteRecorded(
				systemActor(orgId),
				webhook,
				`The organization held more than ${max} endpoints; this one was held longest.`,
			);
	}

	/** Deletes the endpoint with its deliveries and records `webhook.deleted` (`reason`: null for a person). */
	#deleteRecorded(actor: Actor, webhook: WebhookRow, reason: string | null): void {
		this.repos.webhooks.delete(webhook.id);
		this.events.record(actor, 'webhook.deleted', {
			webhook_id: webhook.id,
			url: webhook.url,
			reason,
		});
	}

	/**
	 * Replaces the endpoint's signing secret and returns the new one, shown this once. Until
	 * `oldSecretExpiresAt` (24 hours by default, at most 7 days) every delivery carries a signature
	 * with each, so a receiver verifies throughout the change; a time not in the future ends the
	 * old secret at once. Records `webhook.secret_rotated`.
	 */
	rotateSecret(
		actor: Actor,
		webhookId: string,
		oldSecretExpiresAt: string | undefined,
	): WebhookSecretRotated {
		const now = this.clock.now();
		const until =
			oldSecretExpiresAt === undefined
				? now + DEFAULT_SECRET_OVERLAP_MS
				: Date.parse(oldSecretExpiresAt);
		if (until > now + MAX_SECRET_OVERLAP_MS) {
			const message = 'Must be at most 7 days from now.';
			throw new ApiError('validation_failed', `old_secret_expires_at: ${message}`, [
				{ path: 'old_secret_expires_at', message },
			]);
		}
		return this.transaction(() => {
			const row = findEndpoint(this.repos, actor.orgId, webhookId);
			const secret = generateWebhookSecret();
			const expiresAt = until > now ? until : null;
			this.repos.webhooks.rotateSecret(row.id, secret, expiresAt);
			const webhook = toWebhook(this.clock.now(), findEndpoint(this.repos, actor.orgId, webhookId));
			this.events.record(actor, 'webhook.secret_rotated', {
				webhook_id: webhook.id,
				url: webhook.url,
				previous_secret_expires_at: webhook.previous_secret_expires_at,
			});
			return { ...webhook, secret };
		});
	}
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
	return a.length === b.length && a.every((value) => b.includes(value));
}
