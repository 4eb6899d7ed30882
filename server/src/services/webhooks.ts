import { isoAt } from '../core/clock.ts';
import { ApiError, notFound } from '../core/errors.ts';
import { webhookUrlProblem, type UrlPolicyOptions } from '../lib/network-policy.ts';
import { generateWebhookSecret } from '../lib/webhook-secret.ts';
import type {
	AttemptDetailRow,
	AttemptRow,
	DeliveryFilter,
	DeliveryRow,
} from '../repositories/deliveries.ts';
import { sampleEventData } from './sample-events.ts';
import { pageOf, type Page, type PageRequest } from '../core/paging.ts';
import type { WebhookRow } from '../repositories/webhooks.ts';
import type { EventData, EventType } from '../schemas/events.ts';
import type {
	DeliveryAttemptDetail,
	Webhook,
	WebhookCreate,
	WebhookCreated,
	WebhookDelivery,
	WebhookDeliveryDetail,
	WebhookRecovery,
	WebhookSecretRotated,
	WebhookUpdate,
} from '../schemas/webhooks.ts';
import { DEFAULT_SECRET_OVERLAP_MS, MAX_SECRET_OVERLAP_MS } from '../schemas/webhooks.ts';
import { systemActor, type Actor } from '../core/actor.ts';
import { BOUNDS } from '../schemas/bounds.ts';
import { DomainService, type ServiceDeps } from './domain-service.ts';

export class WebhookService extends DomainService {
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
			(row) => this.#toWebhook(row),
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
			const webhook = this.#toWebhook({
				...row,
				seq: 0,
				disabled_at: null,
				held_since: null,
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

	/** Deliveries to the endpoint, newest first. */
	listDeliveries(
		orgId: string,
		webhookId: string,
		page: PageRequest,
		filter: DeliveryFilter = {},
	): Page<WebhookDelivery> {
		const webhook = this.#find(orgId, webhookId);
		// One read transaction, so each delivery's state and its attempt log agree.
		return this.transaction(() =>
			pageOf(
				page,
				'descending',
				(after, limit) => {
					const rows = this.repos.deliveries.pageNewestFirst(webhook.id, after, limit, filter);
					const logs = this.repos.deliveries.attemptsOf(rows.map((row) => row.seq));
					return rows.map((row) => ({ ...row, attempt_log: logs.get(row.seq) ?? [] }));
				},
				toDelivery,
			),
		);
	}

	/** One delivery to the endpoint with every attempt and the answer each got. */
	getDelivery(orgId: string, webhookId: string, deliveryId: string): WebhookDeliveryDetail {
		const webhook = this.#find(orgId, webhookId);
		return this.transaction(() => {
			const row = this.repos.deliveries.find(webhook.id, deliveryId);
			if (!row) throw notFound('Delivery');
			return {
				...toDelivery({ ...row, attempt_log: [] }),
				attempt_log: this.repos.deliveries.attemptDetailsOf(row.seq).map(toAttemptDetail),
			};
		});
	}

	get(orgId: string, webhookId: string): Webhook {
		return this.#toWebhook(this.#find(orgId, webhookId));
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
			const row = this.#find(actor.orgId, webhookId);
			const before = this.#toWebhook(row);
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
				require_receipt: requireReceipt ? 1 : 0,
			};
			this.repos.webhooks.update(changed);
			if (disabled && !row.disabled_at)
				this.repos.deliveries.giveUpOpenOfWebhook(row.id, `Endpoint disabled by ${actor.email}.`);
			let skipped: number | undefined;
			if (released && input.skip_held_events)
				skipped = this.repos.deliveries.skipHeld(
					row.id,
					row.held_since!,
					`Skipped: it happened while the endpoint was held, and ${actor.email} released it without it. A recovery sends it.`,
				);
			if (released) this.events.deliveriesQueued();
			this.events.record(actor, 'webhook.updated', {
				webhook_id: row.id,
				url,
				changes,
				...(skipped === undefined ? {} : { skipped }),
			});
			if (changes.held && held) this.#deleteHeldBeyondBound(actor.orgId);
			return this.#toWebhook({ ...row, ...changed });
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

	/**
	 * Queues a test event of `eventType` for this endpoint only: a signed sample with every field of a
	 * real event (sample values), marked `test`, and recorded as `webhook.test_sent`. Nothing else in
	 * the organization changes.
	 */
	sendTest(actor: Actor, webhookId: string, eventType: EventType): WebhookDelivery {
		return this.transaction(() => {
			const webhook = this.#findEnabled(actor.orgId, webhookId);
			const subscribed = JSON.parse(webhook.event_types) as EventType[];
			if (!subscribed.includes(eventType)) {
				const message = `The endpoint does not subscribe to ${eventType}; it subscribes to ${subscribed.join(', ')}.`;
				throw new ApiError('validation_failed', message, [{ path: 'event_type', message }]);
			}
			const event = this.events.recordTest(
				actor,
				eventType,
				sampleEventData(eventType, this.nowIso()),
			);
			const deliveryId = this.repos.deliveries.insert(webhook.id, event.id, this.clock.now(), {
				cause: 'test',
			});
			this.events.record(actor, 'webhook.test_sent', {
				webhook_id: webhook.id,
				url: webhook.url,
				event_type: eventType,
				event_id: event.id,
				delivery_id: deliveryId,
			});
			this.events.deliveriesQueued();
			return this.#delivery(webhook.id, deliveryId);
		});
	}

	/**
	 * Sends a delivery again now, whatever its status: the same event (same id), marked as the n-th
	 * resend a person asked for, on a fresh retry schedule; its earlier attempts stay in its log.
	 */
	resend(actor: Actor, webhookId: string, deliveryId: string): WebhookDelivery {
		return this.transaction(() => {
			const webhook = this.#findEnabled(actor.orgId, webhookId);
			const delivery = this.repos.deliveries.find(webhook.id, deliveryId);
			if (!delivery) throw notFound('Delivery');
			this.repos.deliveries.resend(delivery.seq, this.clock.now());
			this.events.record(actor, 'webhook.delivery_resent', {
				webhook_id: webhook.id,
				url: webhook.url,
				delivery_id: delivery.id,
				event_id: delivery.event_id,
				event_type: delivery.event_type,
				resend: delivery.resends + 1,
			});
			this.events.deliveriesQueued();
			return this.#delivery(webhook.id, delivery.id);
		});
	}

	/**
	 * Queues again, on a fresh schedule, every failed or given-up delivery of the endpoint whose event
	 * occurred at or after `since` (deliveries kept while it was disabled among them): counted now,
	 * queued by the dispatcher a batch at a time, so that a recovery of any size is answered at once
	 * and holds up no request.
	 */
	recover(actor: Actor, webhookId: string, since: string): WebhookRecovery {
		if (Date.parse(since) > this.clock.now()) {
			const message = 'Must not be in the future.';
			throw new ApiError('validation_failed', `since: ${message}`, [{ path: 'since', message }]);
		}
		return this.transaction(() => {
			const webhook = this.#findEnabled(actor.orgId, webhookId);
			const queued = this.repos.deliveries.startRecovery(webhook.id, since);
			this.events.record(actor, 'webhook.deliveries_recovered', {
				webhook_id: webhook.id,
				url: webhook.url,
				since,
				queued,
			});
			if (queued > 0) this.events.deliveriesQueued();
			return { queued, since };
		});
	}

	/** Deletes the endpoint; its pending deliveries go with it. */
	delete(actor: Actor, webhookId: string): void {
		this.transaction(() => this.#deleteRecorded(actor, this.#find(actor.orgId, webhookId), null));
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

	/** One delivery with its attempt log, as the deliveries list shows it. */
	#delivery(webhookId: string, deliveryId: string): WebhookDelivery {
		const row = this.repos.deliveries.find(webhookId, deliveryId)!;
		return toDelivery({
			...row,
			attempt_log: this.repos.deliveries.attemptsOf([row.seq]).get(row.seq) ?? [],
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
			const row = this.#find(actor.orgId, webhookId);
			const secret = generateWebhookSecret();
			const expiresAt = until > now ? until : null;
			this.repos.webhooks.rotateSecret(row.id, secret, expiresAt);
			const webhook = this.#toWebhook(this.#find(actor.orgId, webhookId));
			this.events.record(actor, 'webhook.secret_rotated', {
				webhook_id: webhook.id,
				url: webhook.url,
				previous_secret_expires_at: webhook.previous_secret_expires_at,
			});
			return { ...webhook, secret };
		});
	}

	#toWebhook(row: WebhookRow): Webhook {
		return toWebhook(row, this.clock.now());
	}

	/** The endpoint, which must be enabled and not held for anything to be sent to it. */
	#findEnabled(orgId: string, webhookId: string): WebhookRow {
		const webhook = this.#find(orgId, webhookId);
		if (webhook.disabled_at !== null)
			throw new ApiError(
				'invalid_state',
				'This endpoint is disabled, so nothing is sent to it. Enable it first (PATCH with "disabled": false).',
			);
		if (webhook.held_since !== null)
			throw new ApiError(
				'invalid_state',
				'This endpoint is held: its receiver (such as an n8n workflow) is inactive, and its deliveries are kept until it is back. Activate the workflow first.',
			);
		return webhook;
	}

	#find(orgId: string, webhookId: string): WebhookRow {
		const webhook = this.repos.webhooks.find(orgId, webhookId);
		if (!webhook) throw notFound('Webhook endpoint');
		return webhook;
	}
}

function toWebhook(row: WebhookRow, now: number): Webhook {
	const overlapping =
		row.previous_secret_expires_at !== null && row.previous_secret_expires_at > now;
	return {
		id: row.id,
		url: row.url,
		event_types: JSON.parse(row.event_types) as EventType[],
		...(row.description !== null ? { description: row.description } : {}),
		created_at: row.created_at,
		disabled_at: row.disabled_at,
		held_since: row.held_since,
		require_receipt: row.require_receipt === 1,
		previous_secret_expires_at: overlapping ? isoAt(row.previous_secret_expires_at!) : null,
	};
}

function toDelivery(row: DeliveryRow & { attempt_log: AttemptRow[] }): WebhookDelivery {
	return {
		id: row.id,
		event_id: row.event_id,
		event_type: row.event_type as EventType,
		event_occurred_at: row.event_occurred_at,
		test: row.test === 1,
		resends: row.resends,
		status: row.status,
		attempts: row.attempts,
		last_status_code: row.last_status_code,
		last_error: row.last_error,
		last_attempt_at: row.last_attempt_at,
		next_attempt_at: row.next_attempt_at === null ? null : isoAt(row.next_attempt_at),
		attempt_log: row.attempt_log.map((attempt) => ({
			attempt: attempt.attempt,
			attempted_at: attempt.attempted_at,
			duration_ms: attempt.duration_ms,
			status_code: attempt.status_code,
			error: attempt.error,
			cause: attempt.cause,
		})),
	};
}

function toAttemptDetail(row: AttemptDetailRow): DeliveryAttemptDetail {
	return {
		attempt: row.attempt,
		attempted_at: row.attempted_at,
		duration_ms: row.duration_ms,
		status_code: row.status_code,
		error: row.error,
		cause: row.cause,
		response:
			row.response_headers === null
				? null
				: {
						headers: JSON.parse(row.response_headers) as Record<string, string>,
						body: row.response_body ?? '',
						body_truncated: row.response_body_truncated === 1,
					},
	};
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
	return a.length === b.length && a.every((value) => b.includes(value));
}
