import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { SendOutcome } from '../outbox/types.ts';

/** Seconds from an event to its delivery's 2xx: from a few milliseconds to the retry schedule's day. */
const EVENT_TO_DELIVERED_BUCKETS = [
	0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 36000, 100000,
];

/** The `status_class` label's values: an answer's status class, `none` when no answer came. */
const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx', 'none'];
const NO_ANSWER = STATUS_CLASSES.length - 1;

/** `statusCode`'s place in STATUS_CLASSES: `none` for no answer (a timeout, a refused connection). */
function statusClassIndex(statusCode: number | null): number {
	if (statusCode === null || statusCode < 100 || statusCode > 599) return NO_ANSWER;
	return Math.floor(statusCode / 100) - 1;
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

/** Each (outcome, status class) pair of ATTEMPT_LABELS, and where its count waits for a scrape. */
const ATTEMPT_SERIES = Object.entries(ATTEMPT_LABELS).flatMap(([outcome, classes]) =>
	classes.map((status_class) => ({ outcome, status_class })),
);
const OUTCOMES = Object.keys(ATTEMPT_LABELS);
const OUTCOME_INDEX = new Map(OUTCOMES.map((outcome, index) => [outcome, index]));
/**
 * A pair's place in ATTEMPT_SERIES, by outcome index × status classes + status class index (-1: a
 * pair ATTEMPT_LABELS does not list). Found by numbers: a key string made per attempt cost more.
 */
const SERIES_OF_PAIR = OUTCOMES.flatMap((outcome) =>
	STATUS_CLASSES.map((status_class) =>
		ATTEMPT_SERIES.findIndex(
			(pair) => pair.outcome === outcome && pair.status_class === status_class,
		),
	),
);
/** Event → 2xx times noted before they are counted into the histogram, in one loop. */
const FOLD_EVERY = 256;

/**
 * What the outbox counts as it records attempts, wherever it runs (the outbox thread keeps its own
 * registry, which the server merges into `/metrics`). Labels: `outcome` is one of the five kinds
 * of SendOutcome, `status_class` one of 1xx–5xx or none; nothing else.
 */
export class DeliveryMetrics {
	readonly registry = new Registry();
	// Attempts are counted, and their times noted, in plain arrays, and handed to prom-client when
	// scraped (`collect`): its labelled `inc` and `observe` cost the outbox thread several times
	// more one attempt at a time than in one loop.
	readonly #attemptsSince = new Float64Array(ATTEMPT_SERIES.length);
	readonly #secondsToDelivered = { count: 0, seconds: new Float64Array(FOLD_EVERY) };
	readonly #attempts = new Counter({
		name: 'traininglab_webhook_attempts_total',
		help: 'Webhook delivery attempts recorded, by outcome (delivered, retry_after, gone, failed) and answer status class (1xx-5xx, none)',
		labelNames: ['outcome', 'status_class'] as const,
		registers: [this.registry],
		collect: () => this.#countAttempts(),
	});
	readonly #eventToDelivered = new Histogram({
		name: 'traininglab_webhook_event_to_delivered_seconds',
		help: "Time from an event to its delivery's 2xx answer, retries included (test events left out)",
		buckets: EVENT_TO_DELIVERED_BUCKETS,
		registers: [this.registry],
		collect: () => this.#countDelivered(),
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
		const classIndex = statusClassIndex(outcome.statusCode);
		const series =
			SERIES_OF_PAIR[OUTCOME_INDEX.get(outcome.kind)! * STATUS_CLASSES.length + classIndex];
		if (series >= 0) this.#attemptsSince[series]++;
		else this.#attempts.inc({ outcome: outcome.kind, status_class: STATUS_CLASSES[classIndex] });
		if (outcome.kind === 'delivered' && !test) {
			const seconds = (endedAt - Date.parse(eventOccurredAt)) / 1000;
			if (seconds < 0) return;
			const noted = this.#secondsToDelivered;
			noted.seconds[noted.count++] = seconds;
			if (noted.count === FOLD_EVERY) this.#countDelivered();
		}
	}

	#countAttempts(): void {
		const since = this.#attemptsSince;
		for (const [series, labels] of ATTEMPT_SERIES.entries())
			if (since[series] > 0) {
				this.#attempts.inc(labels, since[series]);
				since[series] = 0;
			}
	}

	#countDelivered(): void {
		const { count, seconds } = this.#secondsToDelivered;
		for (let at = 0; at < count; at++) this.#eventToDelivered.observe(seconds[at]);
		this.#secondsToDelivered.count = 0;
	}

	givenUp(): void {
		this.#givenUp.inc();
	}
}
