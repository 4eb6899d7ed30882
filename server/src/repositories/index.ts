import type { Database } from 'better-sqlite3';
import { AttemptBuckets } from '../outbox/attempt-buckets.ts';
import { AttemptLog } from '../outbox/attempt-log.ts';
import { Backlog } from '../outbox/backlog.ts';
import { EndpointHealth } from '../outbox/endpoint-health.ts';
import { DeliveryQueue } from '../outbox/queue.ts';
import { Recoveries } from '../outbox/recovery.ts';
import { DeliveryRetention } from '../outbox/retention.ts';
import { ApiKeyRepository } from './api-keys.ts';
import { EventConsumerRepository } from './event-consumers.ts';
import { EventRepository } from './events.ts';
import { IdempotencyRepository } from './idempotency.ts';
import { LabRepository, LabVersionRepository } from './labs.ts';
import { OrgRepository } from './orgs.ts';
import { ServerKeyRepository } from './server-keys.ts';
import { ParticipantRepository, SessionRepository } from './sessions.ts';
import { UserRepository } from './users.ts';
import { WebhookRepository } from './webhooks.ts';

export interface Repositories {
	orgs: OrgRepository;
	users: UserRepository;
	apiKeys: ApiKeyRepository;
	labs: LabRepository;
	labVersions: LabVersionRepository;
	sessions: SessionRepository;
	participants: ParticipantRepository;
	events: EventRepository;
	eventConsumers: EventConsumerRepository;
	webhooks: WebhookRepository;
	/**
	 * The webhook outbox's store: its queue, attempt log and its buckets, recoveries, retention,
	 * backlog and endpoints' health.
	 */
	outbox: {
		queue: DeliveryQueue;
		attempts: AttemptLog;
		buckets: AttemptBuckets;
		recoveries: Recoveries;
		retention: DeliveryRetention;
		backlog: Backlog;
		health: EndpointHealth;
	};
	idempotency: IdempotencyRepository;
	serverKeys: ServerKeyRepository;
}

export function createRepositories(db: Database): Repositories {
	return {
		orgs: new OrgRepository(db),
		users: new UserRepository(db),
		apiKeys: new ApiKeyRepository(db),
		labs: new LabRepository(db),
		labVersions: new LabVersionRepository(db),
		sessions: new SessionRepository(db),
		participants: new ParticipantRepository(db),
		events: new EventRepository(db),
		eventConsumers: new EventConsumerRepository(db),
		webhooks: new WebhookRepository(db),
		outbox: {
			queue: new DeliveryQueue(db),
			attempts: new AttemptLog(db),
			buckets: new AttemptBuckets(db),
			recoveries: new Recoveries(db),
			retention: new DeliveryRetention(db),
			backlog: new Backlog(db),
			health: new EndpointHealth(db),
		},
		idempotency: new IdempotencyRepository(db),
		serverKeys: new ServerKeyRepository(db),
	};
}
