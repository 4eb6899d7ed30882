import { isoAt } from '../core/clock.ts';
import { ApiError, notFound } from '../core/errors.ts';
import { webhookUrlProblem, type UrlPolicyOptions } from '../lib/network-policy.ts';
import { generateWebhookSecret } from '../lib/webhook-secret.ts';
import type { AttemptRow, DeliveryRow } from '../repositories/deliveries.ts';
import { pageOf, type Page, type PageRequest } from '../core/paging.ts';
import type { WebhookRow } from '../repositories/webhooks.ts';
import type { EventType } from '../schemas/events.ts';
import type {
	Webhook,
	WebhookCreate,
	WebhookCreated,
	WebhookDelivery,
} from '../schemas/webhooks.ts';
import type { Actor } from '../core/actor.ts';
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
			toWebhook,
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
			const { max } = BOUNDS.webhookEndpoints;
			if (this.repos.webhooks.count(actor.orgId) >= max) {
				throw new ApiError(
					'webhook_limit_reached',
					`This organization already has ${max} webhook endpoints, the most it may have. Delete one it no longer needs first.`,
				);
			}
			const row = {
				id: this.newId(),
				org_id: actor.orgId,
				url: input.url,
				event_types: JSON.stringify(input.event_types),
				description: input.description ?? null,
				secret: generateWebhookSecret(),
				created_at: this.nowIso(),
			};
			this.repos.webhooks.insert(row);
			const webhook = toWebhook({ ...row, seq: 0, disabled_at: null });
			this.events.record(actor, 'webhook.created', {
				webhook_id: webhook.id,
				url: webhook.url,
				event_types: webhook.event_types,
			});
			return { ...webhook, secret: row.secret };
		});
	}

	/** Deliveries to the endpoint, newest first. */
	listDeliveries(orgId: string, webhookId: string, page: PageRequest): Page<WebhookDelivery> {
		const webhook = this.#find(orgId, webhookId);
		// One read transaction, so each delivery's state and its attempt log agree.
		return this.transaction(() =>
			pageOf(
				page,
				'descending',
				(after, limit) => {
					const rows = this.repos.deliveries.pageNewestFirst(webhook.id, after, limit);
					const logs = this.repos.deliveries.attemptsOf(rows.map((row) => row.seq));
					return rows.map((row) => ({ ...row, attempt_log: logs.get(row.seq) ?? [] }));
				},
				toDelivery,
			),
		);
	}

	get(orgId: string, webhookId: string): Webhook {
		return toWebhook(this.#find(orgId, webhookId));
	}

	/** Deletes the endpoint; its pending deliveries go with it. */
	delete(actor: Actor, webhookId: string): void {
		this.transaction(() => {
			const webhook = this.#find(actor.orgId, webhookId);
			this.repos.webhooks.delete(webhook.id);
			this.events.record(actor, 'webhook.deleted', { webhook_id: webhook.id, url: webhook.url });
		});
	}

	#find(orgId: string, webhookId: string): WebhookRow {
		const webhook = this.repos.webhooks.find(orgId, webhookId);
		if (!webhook) throw notFound('Webhook endpoint');
		return webhook;
	}
}

function toWebhook(row: WebhookRow): Webhook {
	return {
		id: row.id,
		url: row.url,
		event_types: JSON.parse(row.event_types) as EventType[],
		...(row.description !== null ? { description: row.description } : {}),
		created_at: row.created_at,
		disabled_at: row.disabled_at,
	};
}

function toDelivery(row: DeliveryRow & { attempt_log: AttemptRow[] }): WebhookDelivery {
	return {
		id: row.id,
		event_id: row.event_id,
		event_type: row.event_type as EventType,
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
		})),
	};
}
