import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { SendOutcome } from '../outbox/types.ts';

/** Seconds from an event to its delivery's 2xx: from a few milliseconds to the retry schedule's day. */
const EVENT_TO_DELIVERED_BUCKETS = [
	0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 36000, 100000,
];

/** `2xx` … `5xx` for an answer's status, `none` when no answer came (a timeout, a refused connection). */
export function statusClass(statusCode: number | null): string {
	if (statusCode === null || statusCode < 100 || statusCode > 599) return 'none';
	return `${Math.floor(statusCode / 100)}xx`;
}

/**
 * Each `outcome` with the status classes it can have. Every pair is exposed from the start, at 0:
 * a series that first appears already counting hides its first increase from `rate()`, and a
 * burst between two scrapes would read as nothing happened.
 */
const ATTEMPT_LABELS: Record<SendOutcome['kind'], string[]> = {
	delivered: ['2xx'],
	retry_after: ['4xx', '5xx'],
	gone: ['4xx'],
	not_registered: ['4xx'],
	failed: ['1xx', '2xx', '3xx', '4xx', '5xx', 'none'],
};

/**
 * What the outbox counts as it records attempts, wherever it runs (the outbox thread keeps its own
 * registry, which the server merges into `/metrics`). Labels: `outcome` is one of the five kinds
 * of SendOutcome, `status_class` one of 1xx–5xx or none; nothing else.
 */
export class DeliveryMetrics {
	readonly registry = new Registry();
	readonly #attempts = new Counter({
		name: 'traininglab_webhook_attempts_total',
		help: 'Webhook delivery attempts recorded, by outcome (delivered, retry_after, gone, failed) and answer status class (1xx-5xx, none)',
		labelNames: ['outcome', 'status_class'] as const,
		registers: [this.registry],
	});
	readonly #eventToDelivered = new Histogram({
		name: 'traininglab_webhook_event_to_delivered_seconds',
		help: "Time from an event to its delivery's 2xx answer, retries included (test events left out)",
		buckets: EVENT_TO_DELIVERED_BUCKETS,
		registers: [this.registry],
	});
	readonly #givenUp = new Counter({
		name: 'traininglab_webhook_deliveries_given_up_total',
		help: 'Deliveries given up once their retry schedule ran out',
		registers: [this.registry],
	});

	/** `inFlight` reads the dispatcher's sends in flight when Prometheus scrapes. */
	constructor(inFlight: () => number) {
		for (const [outcome, classes] of Object.entries(ATTEMPT_LABELS))
			for (const status_class of classes) this.#attempts.inc({ outcome, status_class }, 0);
		new Gauge({
			name: 'traininglab_webhook_sends_in_flight',
			help: 'Webhook sends in flight now',
			registers: [this.registry],
			collect() {
				this.set(inFlight());
			},
		});
	}

	/** One attempt's outcome, recorded; `eventOccurredAt` is its event's time, `endedAt` Unix ms. */
	attempt(outcome: SendOutcome, eventOccurredAt: string, test: boolean, endedAt: number): void {
		this.#attempts.inc({ outcome: outcome.kind, status_class: statusClass(outcome.statusCode) });
		if (outcome.kind === 'delivered' && !test) {
			const seconds = (endedAt - Date.parse(eventOccurredAt)) / 1000;
			if (seconds >= 0) this.#eventToDelivered.observe(seconds);
		}
	}

	givenUp(): void {
		this.#givenUp.inc();
	}
}
