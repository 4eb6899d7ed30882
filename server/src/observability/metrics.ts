import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { Clock } from '../core/clock.ts';
import type { Backlog } from '../outbox/backlog.ts';
import { RequestDurations } from './request-durations.ts';
import type { SpansLost } from './spans-lost.ts';

/** How often the event loop's delay is sampled (`nodejs_eventloop_lag_*`), in ms. */
const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * Where the delivery side's metrics are read from, in Prometheus' text format: its own registry,
 * or the outbox thread's. Their names are none of the request thread's.
 */
export interface DeliveryMetricsSource {
	deliveryMetrics(): Promise<string>;
}

/**
 * The server's Prometheus metrics (`GET /metrics`): what the request thread counts (requests by
 * route template, rate-limit refusals), what the store holds when scraped (the outbox's backlog,
 * endpoints by state), and the delivery side's counts, merged in. No label carries a key, a
 * secret, a URL's query, a body or an id: `route` is a route template of the API (or `/healthz`,
 * `/metrics`, `/console`, `unmatched`), `method` one of six (or `other`), `status` a status code
 * the server answers with.
 */
export class ServerMetrics {
	readonly #registry = new Registry();
	readonly #delivery: DeliveryMetricsSource;
	readonly #requests = new RequestDurations();
	readonly #rateLimited = new Counter({
		name: 'traininglab_rate_limited_requests_total',
		help: 'Requests refused with 429 because their API key had spent its budget for the window',
		registers: [this.#registry],
	});

	/** `spansLost`: what the export side counts, when traces are exported. */
	constructor(
		backlog: Backlog,
		clock: Clock,
		delivery: DeliveryMetricsSource,
		spansLost?: SpansLost,
	) {
		this.#delivery = delivery;
		// The process's own (CPU, memory, the event loop's delay), under prom-client's usual names,
		// but for three gauges named like counters, which `promtool check metrics` refuses. The delay
		// is sampled by a timer that wakes an idle event loop at each sample, so less often than
		// prom-client's 10 ms (what that cost: docs/observability.md).
		collectDefaultMetrics({
			register: this.#registry,
			eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS,
		});
		for (const misnamed of [
			'nodejs_active_handles_total',
			'nodejs_active_requests_total',
			'nodejs_active_resources_total',
		])
			this.#registry.removeSingleMetric(misnamed);
		this.#registry.registerMetric(this.#requests.asMetric());
		const registers = [this.#registry];
		new Gauge({
			name: 'traininglab_webhook_deliveries_waiting',
			help: 'Webhook deliveries not yet delivered nor given up: due, waiting for a retry, or held with their endpoint',
			registers,
			collect() {
				this.set(backlog.waiting());
			},
		});
		new Gauge({
			name: 'traininglab_webhook_oldest_waiting_delivery_age_seconds',
			help: "Age of the oldest waiting delivery's event (0 when none waits)",
			registers,
			collect() {
				const at = backlog.oldestWaitingEventAt();
				this.set(at === null ? 0 : Math.max(0, (clock.now() - Date.parse(at)) / 1000));
			},
		});
		new Gauge({
			name: 'traininglab_webhook_endpoints',
			help: 'Webhook endpoints by state: active, held (deliveries kept for later) or disabled',
			labelNames: ['state'] as const,
			registers,
			collect() {
				for (const [state, count] of Object.entries(backlog.endpointStates()))
					this.set({ state }, count);
			},
		});
		if (spansLost)
			new Counter({
				name: 'traininglab_trace_spans_dropped_total',
				help: "Spans not exported: no room in their thread's ring (ring_full), or in an export the collector refused or did not answer in time (export_failed)",
				labelNames: ['reason'] as const,
				registers,
				collect() {
					this.reset();
					this.inc({ reason: 'ring_full' }, spansLost.ringFull);
					this.inc({ reason: 'export_failed' }, spansLost.exportFailed);
				},
			});
	}

	/** One request answered: `route` its template (undefined: no route matched), `seconds` its duration. */
	request(method: string, route: string | undefined, status: number, seconds: number): void {
		this.#requests.observe(method, route ?? 'unmatched', status, seconds);
	}

	rateLimited(): void {
		this.#rateLimited.inc();
	}

	/**
	 * Everything, in Prometheus' text format: each side's text, one after the other. Their metrics
	 * are apart, so nothing is merged (prom-client's AggregatorRegistry, which did, took about half
	 * of a scrape's time).
	 */
	async text(): Promise<string> {
		const [own, delivery] = await Promise.all([
			this.#registry.metrics(),
			this.#delivery.deliveryMetrics(),
		]);
		return delivery ? `${own}\n${delivery}` : own;
	}

	get contentType(): string {
		return this.#registry.contentType;
	}
}
