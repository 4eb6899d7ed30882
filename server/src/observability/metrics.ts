import {
	AggregatorRegistry,
	collectDefaultMetrics,
	Counter,
	Gauge,
	Histogram,
	Registry,
	type MetricObjectWithValues,
	type MetricValue,
} from 'prom-client';
import type { Clock } from '../core/clock.ts';
import type { Backlog } from '../outbox/backlog.ts';

export type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

/** Where the delivery side's metrics are read from: its own registry, or the outbox thread's. */
export interface DeliveryMetricsSource {
	deliveryMetrics(): Promise<MetricsJson>;
}

/** Request durations, in seconds: from under a millisecond to the request timeout. */
const REQUEST_BUCKETS = [
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']);

/** Requests noted before they are counted into the histogram, in one loop (see `request`). */
const FOLD_EVERY = 256;

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
	readonly #requests = new Histogram({
		name: 'traininglab_http_request_duration_seconds',
		help: 'HTTP requests answered, by method, route template and status code: seconds from arrival to the last byte handed to the socket',
		labelNames: ['method', 'route', 'status'] as const,
		buckets: REQUEST_BUCKETS,
		registers: [this.#registry],
		collect: () => this.#countAnswered(),
	});
	/** Requests answered and not yet counted: method, route, status and seconds of each. */
	readonly #answered = {
		count: 0,
		methods: new Array<string>(FOLD_EVERY),
		routes: new Array<string | undefined>(FOLD_EVERY),
		statuses: new Uint16Array(FOLD_EVERY),
		seconds: new Float64Array(FOLD_EVERY),
	};
	readonly #rateLimited = new Counter({
		name: 'traininglab_rate_limited_requests_total',
		help: 'Requests refused with 429 because their API key had spent its budget for the window',
		registers: [this.#registry],
	});

	constructor(backlog: Backlog, clock: Clock, delivery: DeliveryMetricsSource) {
		this.#delivery = delivery;
		// The process's own (CPU, memory, the event loop's delay), under prom-client's usual names,
		// but for three gauges named like counters, which `promtool check metrics` refuses.
		collectDefaultMetrics({ register: this.#registry });
		for (const misnamed of [
			'nodejs_active_handles_total',
			'nodejs_active_requests_total',
			'nodejs_active_resources_total',
		])
			this.#registry.removeSingleMetric(misnamed);
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
	}

	/**
	 * One request answered: `route` its template (undefined: no route matched), `seconds` its
	 * duration. Noted, and counted with the next 255 or when scraped (`collect`): prom-client's
	 * `observe` (labels checked and hashed) cost the server several times more one request at a time
	 * than in one loop, and every request pays it.
	 */
	request(method: string, route: string | undefined, status: number, seconds: number): void {
		const answered = this.#answered;
		const at = answered.count++;
		answered.methods[at] = method;
		answered.routes[at] = route;
		answered.statuses[at] = status;
		answered.seconds[at] = seconds;
		if (answered.count === FOLD_EVERY) this.#countAnswered();
	}

	#countAnswered(): void {
		const { count, methods, routes, statuses, seconds } = this.#answered;
		for (let at = 0; at < count; at++) {
			const method = methods[at];
			this.#requests.observe(
				{
					method: METHODS.has(method) ? method : 'other',
					route: routes[at] ?? 'unmatched',
					status: String(statuses[at]),
				},
				seconds[at],
			);
		}
		this.#answered.count = 0;
	}

	rateLimited(): void {
		this.#rateLimited.inc();
	}

	/** Everything, in Prometheus' text format. */
	async text(): Promise<string> {
		const [own, delivery] = await Promise.all([
			this.#registry.getMetricsAsJSON(),
			this.#delivery.deliveryMetrics(),
		]);
		return AggregatorRegistry.aggregate([own as MetricsJson, delivery]).metrics();
	}

	get contentType(): string {
		return this.#registry.contentType;
	}
}
