import type { Logger } from '../http/error-handler.ts';
import type { DeliveryRepository, DueDelivery, AttemptOutcome } from '../repositories/deliveries.ts';
import type { Repositories } from '../repositories/index.ts';
import type { Database } from 'better-sqlite3';
import { signedHeaders } from './signature.ts';
import { WebhookSender, type SendResult } from './sender.ts';

export interface DispatcherOptions {
  retryScheduleSeconds: number[];
  timeoutMs: number;
  allowInsecureUrls: boolean;
  concurrency: number;
}

const LEASE_MARGIN_MS = 5_000;
const MAX_SLEEP_MS = 60 * 60 * 1000;
const JITTER = 0.1;

/**
 * Sends the outbox: claims due deliveries, posts them outside any transaction with at most
 * `concurrency` in flight, and records each outcome (success, retry with jitter, exhaustion,
 * or the endpoint disabled by 410 Gone). Woken when deliveries are queued, and by a timer for retries.
 */
export class WebhookDispatcher {
  readonly #db: Database;
  readonly #deliveries: DeliveryRepository;
  readonly #repos: Repositories;
  readonly #options: DispatcherOptions;
  readonly #logger: Logger;
  readonly #sender: WebhookSender;
  readonly #inFlight = new Set<Promise<void>>();
  #wakeScheduled = false;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  readonly #abort = new AbortController();

  constructor(db: Database, repos: Repositories, options: DispatcherOptions, logger: Logger) {
    this.#db = db;
    this.#repos = repos;
    this.#deliveries = repos.deliveries;
    this.#options = options;
    this.#logger = logger;
    this.#sender = new WebhookSender({
      timeoutMs: options.timeoutMs,
      allowInsecureUrls: options.allowInsecureUrls,
      maxSockets: options.concurrency,
    });
  }

  /** Takes over the outbox: sends left unfinished by a previous process are sent again (at least once). */
  start(): void {
    this.#deliveries.releaseAllClaims();
    this.wake();
  }

  /** Schedules a pass over the outbox soon (coalesced; never inside the caller's transaction). */
  wake(): void {
    if (this.#stopped || this.#wakeScheduled) return;
    this.#wakeScheduled = true;
    setImmediate(() => {
      this.#wakeScheduled = false;
      this.#pump();
    });
  }

  /**
   * Stops claiming and aborts the sends in flight, so shutdown does not wait for slow receivers.
   * An aborted attempt is not recorded: its claim is released at the next start and it is sent again.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#abort.abort();
    await Promise.allSettled(this.#inFlight);
    this.#sender.close();
  }

  #pump(): void {
    if (this.#stopped) return;
    const free = this.#options.concurrency - this.#inFlight.size;
    if (free <= 0) return; // a finishing send wakes us
    const now = Date.now();
    const claimed = this.#deliveries.claimDue(now, free, now + this.#options.timeoutMs + LEASE_MARGIN_MS);
    for (const delivery of claimed) {
      const sending: Promise<void> = this.#deliver(delivery)
        .catch((error) => this.#logger.error(`webhook delivery ${delivery.id} failed unexpectedly`, error))
        .finally(() => {
          this.#inFlight.delete(sending);
          this.wake();
        });
      this.#inFlight.add(sending);
    }
    if (claimed.length < free) this.#sleepUntilNextDue();
  }

  #sleepUntilNextDue(): void {
    clearTimeout(this.#timer);
    const next = this.#deliveries.nextDueAt(Date.now());
    if (next === null) return;
    this.#timer = setTimeout(() => this.wake(), Math.min(Math.max(0, next - Date.now()), MAX_SLEEP_MS));
  }

  async #deliver(delivery: DueDelivery): Promise<void> {
    const body = JSON.stringify({
      id: delivery.event_id,
      type: delivery.event_type,
      occurred_at: delivery.event_occurred_at,
      org_id: delivery.org_id,
      actor: delivery.event_actor,
      data: JSON.parse(delivery.event_data),
    });
    const headers = signedHeaders(delivery.secret, delivery.event_id, Math.floor(Date.now() / 1000), body);
    const result = await this.#sender.post(delivery.url, body, headers, this.#abort.signal);
    if (result) this.#record(delivery, result);
  }

  #record(delivery: DueDelivery, result: SendResult): void {
    const attempts = delivery.attempts + 1;
    const base = { attempts, last_status_code: result.statusCode, last_error: result.error, last_attempt_at: new Date().toISOString() };
    if (result.error === null) {
      this.#deliveries.record(delivery.id, { ...base, status: 'succeeded', next_attempt_at: null });
      return;
    }
    if (result.statusCode === 410) {
      this.#db.transaction(() => {
        this.#deliveries.record(delivery.id, { ...base, status: 'exhausted', next_attempt_at: null });
        this.#repos.webhooks.disable(delivery.webhook_id, base.last_attempt_at);
        this.#deliveries.exhaustOpenOfWebhook(delivery.webhook_id, 'Endpoint disabled: it answered 410 Gone');
      })();
      return;
    }
    this.#deliveries.record(delivery.id, { ...base, ...this.#retryAfter(attempts) });
  }

  #retryAfter(attempts: number): Pick<AttemptOutcome, 'status' | 'next_attempt_at'> {
    const delayMs = retryDelayMs(this.#options.retryScheduleSeconds, attempts);
    return delayMs === null ? { status: 'exhausted', next_attempt_at: null } : { status: 'failed', next_attempt_at: Date.now() + delayMs };
  }
}

/**
 * Delay before the next try after `attempts` failed ones: the schedule's entry ±10%, so that many
 * deliveries failing together do not all retry in the same instant; null once the schedule is used up.
 */
export function retryDelayMs(scheduleSeconds: readonly number[], attempts: number, random: () => number = Math.random): number | null {
  const delaySeconds = scheduleSeconds[attempts - 1];
  if (delaySeconds === undefined) return null;
  return Math.round(delaySeconds * 1000 * (1 + JITTER * (2 * random() - 1)));
}
