import { randomUUID } from 'node:crypto';
import { ApiError, notFound } from '../http/errors.ts';
import { nowIso } from '../lib/clock.ts';
import { webhookUrlProblem } from '../lib/network-policy.ts';
import { generateWebhookSecret } from '../lib/webhook-secret.ts';
import { FIRST_ASCENDING, toPage, type Page } from '../repositories/paging.ts';
import type { WebhookRow } from '../repositories/webhooks.ts';
import type { ListQuery } from '../schemas/common.ts';
import type { EventType } from '../schemas/events.ts';
import type { Webhook, WebhookCreate, WebhookCreated } from '../schemas/webhooks.ts';
import type { Actor } from './actor.ts';
import { DomainService, type ServiceDeps } from './domain-service.ts';

export class WebhookService extends DomainService {
  readonly #allowInsecureUrls: boolean;

  constructor(deps: ServiceDeps, options: { allowInsecureUrls: boolean }) {
    super(deps);
    this.#allowInsecureUrls = options.allowInsecureUrls;
  }

  list(orgId: string, query: ListQuery): Page<Webhook> {
    const rows = this.repos.webhooks.page(orgId, query.cursor ?? FIRST_ASCENDING, query.limit + 1);
    return toPage(rows, query.limit, toWebhook);
  }

  /** The SSRF guard; it resolves the host, so it runs before (outside) the create transaction. */
  async assertUrlAllowed(url: string): Promise<void> {
    if (this.#allowInsecureUrls) return;
    const problem = await webhookUrlProblem(url);
    if (problem) throw new ApiError('validation_failed', problem, [{ path: 'url', message: problem }]);
  }

  create(actor: Actor, input: WebhookCreate): WebhookCreated {
    return this.transaction(() => {
      if (this.repos.webhooks.findByUrl(actor.orgId, input.url)) {
        throw new ApiError('url_taken', `A webhook endpoint for ${input.url} already exists.`);
      }
      const row = {
        id: randomUUID(),
        org_id: actor.orgId,
        url: input.url,
        event_types: JSON.stringify(input.event_types),
        description: input.description ?? null,
        secret: generateWebhookSecret(),
        created_at: nowIso(),
      };
      this.repos.webhooks.insert(row);
      const webhook = toWebhook({ ...row, seq: 0 });
      this.events.record(actor, 'webhook.created', { webhook_id: webhook.id, url: webhook.url, event_types: webhook.event_types });
      return { ...webhook, secret: row.secret };
    });
  }

  delete(actor: Actor, webhookId: string): void {
    this.transaction(() => {
      const webhook = this.repos.webhooks.find(actor.orgId, webhookId);
      if (!webhook) throw notFound('Webhook endpoint');
      this.repos.webhooks.delete(webhook.id);
      this.events.record(actor, 'webhook.deleted', { webhook_id: webhook.id, url: webhook.url });
    });
  }
}

function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    event_types: JSON.parse(row.event_types) as EventType[],
    ...(row.description !== null ? { description: row.description } : {}),
    created_at: row.created_at,
  };
}
