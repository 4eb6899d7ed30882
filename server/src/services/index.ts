import type { Database } from 'better-sqlite3';
import type { LookupAll } from '../lib/network-policy.ts';
import { createRepositories, type Repositories } from '../repositories/index.ts';
import { ApiKeyService } from './api-keys.ts';
import { EventLog } from './event-log.ts';
import { LabService } from './labs.ts';
import { MemberService } from './members.ts';
import { OrgService } from './orgs.ts';
import { SessionService } from './sessions.ts';
import { WebhookService } from './webhooks.ts';

export interface Services {
  events: EventLog;
  members: MemberService;
  apiKeys: ApiKeyService;
  orgs: OrgService;
  sessions: SessionService;
  labs: LabService;
  webhooks: WebhookService;
}

export interface ServiceOptions {
  allowInsecureWebhookUrls: boolean;
  /** Bound on resolving a webhook host at creation (default 5 s); `lookup` replaces the system resolver. */
  webhookDnsTimeoutMs?: number;
  webhookLookup?: LookupAll;
}

export function createServices(db: Database, options: ServiceOptions, repos: Repositories = createRepositories(db)): Services {
  const deps = { db, repos, events: new EventLog(repos) };
  const members = new MemberService(deps);
  const apiKeys = new ApiKeyService(deps);
  return {
    events: deps.events,
    members,
    apiKeys,
    orgs: new OrgService(deps, members, apiKeys),
    sessions: new SessionService(deps),
    labs: new LabService(deps),
    webhooks: new WebhookService(deps, {
      allowInsecureUrls: options.allowInsecureWebhookUrls,
      urlPolicy: { dnsTimeoutMs: options.webhookDnsTimeoutMs ?? 5000, lookup: options.webhookLookup },
    }),
  };
}
