import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { WebhookDeliveryBody } from '../schemas/events.ts';
import type { OutboxNotice } from './notice.ts';
import type { Answer, Outbox } from './outbox.ts';
import { DeliveryScheduler } from './scheduler.ts';
import { WebhookSender } from './sender.ts';
import type { Tracing } from '../observability/tracing.ts';
import { signedHeaders } from './signature.ts';
import type { DueDelivery } from './types.ts';

/** Every field of a delivery's body, whatever its type (the schema ties `data` to `type`). */
type DeliveryBody = { [Field in keyof WebhookDeliveryBody]: WebhookDeliveryBody[Field] };

export interface DispatcherOptions {
	timeoutMs: number;
	allowInsecureUrls: boolean;
	/** Sends in flight at once, in all. */
	concurrency: number;
	/** Sends in flight at once to one endpoint: the next goes when one is answered. */
	endpointConcurrency: number;
	/** Sends in flight at once to one organization's endpoints: the others' always find a slot. */
	orgConcurrency: number;
}

const LEASE_MARGIN_MS = 5_000;
const MAX_SLEEP_MS = 60 * 60 * 1000;

/**
 * Sends the outbox: claims the due deliveries its scheduler lets start, posts them outside any
 * transaction, and hands each outcome to the outbox to record. Woken when deliveries are queued (it
 * is the outbox's notice), and by a timer for retries.
 */
export class WebhookDispatcher implements OutboxNotice {
	readonly #outbox: Outbox;
	readonly #clock: Clock;
	readonly #options: DispatcherOptions;
	readonly #logger: Logger;
	readonly #sender: WebhookSender;
	readonly #scheduler: DeliveryScheduler;
	readonly #inFlight = new Set<Promise<void>>();
	/** Attempts answered since the last pass, recorded together by the next. */
	#answered: Answer[] = [];
	#wakeScheduled = false;
	#recoveryScheduled = false;
	#timer: NodeJS.Timeout | undefined;
	#stopped = false;
	readonly #abort = new AbortController();
	readonly #tracing: Tracing;

	constructor(
		outbox: Outbox,
		options: DispatcherOptions,
		logger: Logger,
		clock: Clock,
		tracing: Tracing,
	) {
		this.#outbox = outbox;
		this.#tracing = tracing;
		this.#clock = clock;
		this.#options = options;
		this.#logger = logger;
		this.#scheduler = new DeliveryScheduler({
			total: options.concurrency,
			perEndpoint: options.endpointConcurrency,
			perOrg: options.orgConcurrency,
		});
		this.#sender = new WebhookSender({
			timeoutMs: options.timeoutMs,
			allowInsecureUrls: options.allowInsecureUrls,
			maxSockets: options.concurrency,
			now: () => clock.now(),
		});
	}

	deliveriesQueued(): void {
		this.wake();
	}

	/** Sends in flight now. */
	get inFlight(): number {
		return this.#scheduler.inFlight;
	}

	/** Takes over the outbox: sends left unfinished by a previous process are sent again (at least once). */
	start(): void {
		this.#outbox.releaseAllClaims();
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
	 * Resolves once nothing is in flight and nothing is due: every delivery queued so far has had
	 * its attempt. Deliveries waiting for a retry later do not count.
	 */
	async whenIdle(): Promise<void> {
		for (;;) {
			// While sends are in flight, wait for one to finish rather than asking the database each tick.
			if (this.#inFlight.size > 0) await Promise.race(this.#inFlight);
			else if (
				this.#wakeScheduled ||
				this.#recoveryScheduled ||
				this.#answered.length > 0 ||
				this.#outbox.recoveryUnderWay() ||
				this.#outbox.msUntilNextDue() === 0
			)
				await new Promise((resolve) => setImmediate(resolve));
			else return;
		}
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
		this.#recordAnswered();
		this.#sender.close();
	}

	/** Records the attempts answered since the last pass (one not recorded is sent again later). */
	#recordAnswered(): void {
		const answered = this.#answered;
		this.#answered = [];
		for (const { answer, error } of this.#outbox.record(answered))
			this.#logger.error(
				`recording an attempt of webhook delivery ${answer.delivery.id} failed`,
				error,
			);
	}

	#pump(): void {
		if (this.#stopped) return;
		this.#recordAnswered();
		this.#sendDue();
		if (this.#outbox.recoveryUnderWay()) this.#recoverSoon();
	}

	/**
	 * Queues a recovery's next batch on a later turn of the event loop than the pass's sends, which
	 * are written to their sockets first: a delivery due meanwhile (another organization's) waits
	 * for no batch. One batch a turn, with answers and sends handled between.
	 */
	#recoverSoon(): void {
		if (this.#recoveryScheduled) return;
		this.#recoveryScheduled = true;
		setImmediate(() => {
			this.#recoveryScheduled = false;
			if (!this.#stopped && this.#outbox.recoverNextBatch()) this.wake();
		});
	}

	/** Claims what the scheduler lets start now and sends it; sleeps until the next due when idle. */
	#sendDue(): void {
		const free = this.#scheduler.free;
		if (free <= 0) return; // a finishing send wakes us
		const claimed = this.#outbox.claimDue(
			this.#scheduler,
			this.#options.timeoutMs + LEASE_MARGIN_MS,
		);
		for (const delivery of claimed) {
			this.#scheduler.started(delivery);
			const sending: Promise<void> = this.#deliver(delivery)
				.catch((error) =>
					this.#logger.error(`webhook delivery ${delivery.id} failed unexpectedly`, error),
				)
				.finally(() => {
					this.#inFlight.delete(sending);
					this.#scheduler.finished(delivery);
					this.wake();
				});
			this.#inFlight.add(sending);
		}
		if (claimed.length < free) this.#sleepUntilNextDue();
	}

	#sleepUntilNextDue(): void {
		clearTimeout(this.#timer);
		const waitMs = this.#outbox.msUntilNextDue(this.#scheduler);
		if (waitMs === null) return;
		this.#timer = setTimeout(() => this.wake(), Math.min(waitMs, MAX_SLEEP_MS));
	}

	async #deliver(delivery: DueDelivery): Promise<void> {
		const event: DeliveryBody = {
			id: delivery.event_id,
			type: delivery.event_type,
			occurred_at: delivery.event_occurred_at,
			org_id: delivery.org_id,
			actor: delivery.event_actor,
			data: JSON.parse(delivery.event_data),
			// Signed with the rest: a receiver can trust that it is a sample, or a resend a person asked for.
			...(delivery.event_test ? { test: true } : {}),
			...(delivery.resends > 0 ? { resend: delivery.resends } : {}),
		};
		const body = JSON.stringify(event);
		const startedAt = this.#clock.now();
		const secrets = [delivery.secret, delivery.previous_secret].filter((s) => s !== null);
		const headers = signedHeaders(secrets, delivery.event_id, Math.floor(startedAt / 1000), body);
		// A span of the event's trace, which the receiver continues (n8n makes it its execution's parent).
		const tracing = this.#tracing;
		const eventTrace = tracing.extract({
			traceparent: delivery.event_trace_parent ?? undefined,
			tracestate: delivery.event_trace_state ?? undefined,
		});
		const span = tracing.startAttemptSpan(
			{
				deliveryId: delivery.id,
				webhookId: delivery.webhook_id,
				eventType: delivery.event_type,
				attempt: delivery.attempts + 1,
				host: hostOf(delivery.url),
			},
			eventTrace,
		);
		const context = tracing.withSpan(eventTrace, span);
		const outcome = await this.#sender.post(
			delivery.url,
			body,
			{ ...headers, ...tracing.headersOf(span) },
			{
				signal: this.#abort.signal,
				receipt: delivery.require_receipt ? delivery.event_id : undefined,
			},
		);
		if (outcome) {
			span.outcome = outcome.kind;
			span.statusCode = outcome.statusCode;
			span.error = outcome.error;
			this.#answered.push({ delivery, outcome, startedAt, endedAt: this.#clock.now(), context });
		}
		span.end();
	}
}

/** Endpoints' hosts by URL: parsing a URL for each attempt's span took a fifth of what tracing added to it. */
const hosts = new Map<string, string>();
/** URLs whose host is kept: more are parsed again once forgotten. */
const MAX_HOSTS = 1000;

/** The host of a delivery URL, for its span: never the path, query or credentials. */
function hostOf(url: string): string {
	let host = hosts.get(url);
	if (host === undefined) {
		try {
			host = new URL(url).hostname;
		} catch {
			host = '';
		}
		if (hosts.size >= MAX_HOSTS) hosts.clear();
		hosts.set(url, host);
	}
	return host;
}
