import { randomUUID } from 'node:crypto';
import { nowIso } from '../lib/clock.ts';
import { FIRST_DESCENDING, toPage, type Page } from '../repositories/paging.ts';
import type { Repositories } from '../repositories/index.ts';
import type { EventRow } from '../repositories/events.ts';
import type { ActivityEvent, EventType } from '../schemas/events.ts';
import type { ListQuery } from '../schemas/common.ts';
import type { Actor } from './actor.ts';

/**
 * The organisation's activity log. `record` must be called inside the transaction of the change
 * it describes, so an event exists exactly when its change committed.
 */
export class EventLog {
  readonly #repos: Repositories;

  constructor(repos: Repositories) {
    this.#repos = repos;
  }

  record(actor: Actor, type: EventType, data: Record<string, unknown>): ActivityEvent {
    const event: ActivityEvent = { id: randomUUID(), type, actor: actor.email, occurred_at: nowIso(), data };
    this.#repos.events.insert({ ...event, org_id: actor.orgId, data: JSON.stringify(data) });
    return event;
  }

  list(orgId: string, query: ListQuery): Page<ActivityEvent> {
    const rows = this.#repos.events.pageNewestFirst(orgId, query.cursor ?? FIRST_DESCENDING, query.limit + 1);
    return toPage(rows, query.limit, toActivityEvent);
  }
}

function toActivityEvent(row: EventRow): ActivityEvent {
  return {
    id: row.id,
    type: row.type as EventType,
    actor: row.actor,
    occurred_at: row.occurred_at,
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
}
