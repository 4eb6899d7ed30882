import type { Database } from 'better-sqlite3';
import { systemClock, type Clock } from '../core/clock.ts';
import type { LookupAll } from '../lib/network-policy.ts';
import type { OutboxNotice } from '../outbox/notice.ts';
import { createRepositories, type Repositories } from '../repositories/index.ts';
import { ApiKeyService } from './api-keys.ts';
import { DeliveryOperationService } from './delivery-operations.ts';
import { EventConsumerService } from './event-consumers.ts';
import { EventLog } from './event-log.ts';
import type { Tracing } from '../observability/tracing.ts';
import { IdempotencyService } from './idempotency.ts';
import { LabService } from './labs.ts';
import { MemberService } from './members.ts';
import { OrgService } from './orgs.ts';
import { ResourceScope } from './resource-scope.ts';
import { RetentionService } from './retention.ts';
import { SessionService } from './sessions.ts';
import { WebhookEndpointService } from './webhook-endpoints.ts';

export interface Services {
	events: EventLog;
	eventConsumers: EventConsumerService;
	members: MemberService;
	apiKeys: ApiKeyService;
	orgs: OrgService;
	sessions: SessionService;
	labs: LabService;
	webhookEndpoints: WebhookEndpointService;
	deliveryOperations: DeliveryOperationService;
	idempotency: IdempotencyService;
	retention: RetentionService;
	scope: ResourceScope;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_RETENTION = { eventMs: 90 * DAY_MS, deliveryMs: 30 * DAY_MS };

interface ServiceOptions {
	allowInsecureWebhookUrls: boolean;
	/** Bound on resolving a webhook host at creation (default 5 s); `lookup` replaces the system resolver. */
	webhookDnsTimeoutMs?: number;
	webhookLookup?: LookupAll;
	/**
	 * Told when deliveries became due: the outbox's dispatcher (server.ts starts it on its own
	 * thread). Left out, nothing is told: a test drives the outbox itself.
	 */
	outbox?: OutboxNotice;
	/** How long events and finished deliveries are kept (default 90 and 30 days). */
	retention?: { eventMs: number; deliveryMs: number };
	clock?: Clock;
	/** Records each event in a span of the request's trace (observability/tracing.ts). */
	tracing?: Tracing;
}

export function createServices(
	db: Database,
	options: ServiceOptions,
	repos: Repositories = createRepositories(db),
): Services {
	const clock = options.clock ?? systemClock;
	const outbox = options.outbox ?? { deliveriesQueued: () => {} };
	const events = new EventLog(repos, clock, outbox, options.tracing);
	const deps = { db, repos, clock, outbox, events };
	const members = new MemberService(deps);
	const apiKeys = new ApiKeyService(deps);
	return {
		events: deps.events,
		eventConsumers: new EventConsumerService(deps),
		members,
		apiKeys,
		orgs: new OrgService(deps, members, apiKeys),
		sessions: new SessionService(deps),
		labs: new LabService(deps),
		webhookEndpoints: new WebhookEndpointService(deps, {
			allowInsecureUrls: options.allowInsecureWebhookUrls,
			urlPolicy: {
				dnsTimeoutMs: options.webhookDnsTimeoutMs ?? 5000,
				lookup: options.webhookLookup,
			},
		}),
		deliveryOperations: new DeliveryOperationService(deps),
		idempotency: new IdempotencyService(deps),
		retention: new RetentionService(deps, options.retention ?? DEFAULT_RETENTION),
		scope: new ResourceScope(repos),
	};
}
