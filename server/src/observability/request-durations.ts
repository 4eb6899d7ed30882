import type { Metric, MetricObjectWithValues, MetricValueWithName } from 'prom-client';

/** Request durations, in seconds: from under a millisecond to the request timeout. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The `method` label's values: `other` for any method but these. */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'other'];
const OTHER = METHODS.length - 1;
const METHOD_INDEX = new Map(METHODS.slice(0, OTHER).map((method, index) => [method, index]));
/** Requests observed are counted this many at a time, and those left before each scrape. */
const COUNT_EVERY = 64;

/** One (method, route, status) series: requests per bucket (the last one past 30 s), their sum and count. */
interface Series {
	labels: { method: string; route: string; status: string };
	inBucket: Float64Array;
	sum: number;
	count: number;
}

/**
 * `traininglab_http_request_duration_seconds`: a Prometheus histogram by method, route template
 * and status, which a prom-client Registry takes as one of its own (`get()` answers as its
 * Histogram's does). Counted here rather than by that Histogram, whose `observe` checks and
 * hashes the labels of every value it is given (0.6–0.9 µs, which every request paid): here a
 * request finds its series by its route template and a number made of its status and method.
 * A request observed is only noted, in two arrays, and counted with 63 others in one loop, or
 * before the next scrape: looked up between two requests' work, the series' maps and their
 * buckets are out of the CPU's caches each time (docs/performance.md).
 */
export class RequestDurations {
	readonly name = 'traininglab_http_request_duration_seconds';
	readonly help =
		'HTTP requests answered, by method, route template and status code: seconds from arrival to the last byte handed to the socket';
	readonly type = 'histogram';
	readonly aggregator = 'sum';
	/** route template → status × 8 + method index → its series. */
	readonly #series = new Map<string, Map<number, Series>>();
	/** Requests noted and not yet counted: method and route, then status and seconds, by turns. */
	readonly #notedNames = new Array<string>(2 * COUNT_EVERY).fill('');
	readonly #notedNumbers = new Float64Array(2 * COUNT_EVERY);
	#noted = 0;

	/** One request answered: `route` a template (or `unmatched`), `status` a status code the server sent. */
	observe(method: string, route: string, status: number, seconds: number): void {
		const at = 2 * this.#noted++;
		this.#notedNames[at] = method;
		this.#notedNames[at + 1] = route;
		this.#notedNumbers[at] = status;
		this.#notedNumbers[at + 1] = seconds;
		if (this.#noted === COUNT_EVERY) this.#countNoted();
	}

	#countNoted(): void {
		const names = this.#notedNames;
		const numbers = this.#notedNumbers;
		for (let at = 0; at < 2 * this.#noted; at += 2)
			this.#count(names[at], names[at + 1], numbers[at], numbers[at + 1]);
		this.#noted = 0;
	}

	#count(method: string, route: string, status: number, seconds: number): void {
		let ofRoute = this.#series.get(route);
		if (!ofRoute) this.#series.set(route, (ofRoute = new Map()));
		const methodIndex = METHOD_INDEX.get(method) ?? OTHER;
		const key = status * 8 + methodIndex;
		let series = ofRoute.get(key);
		if (!series) {
			series = {
				labels: { method: METHODS[methodIndex], route, status: String(status) },
				inBucket: new Float64Array(BUCKETS.length + 1),
				sum: 0,
				count: 0,
			};
			ofRoute.set(key, series);
		}
		let bucket = 0;
		while (bucket < BUCKETS.length && seconds > BUCKETS[bucket]) bucket++;
		series.inBucket[bucket]++;
		series.sum += seconds;
		series.count++;
	}

	/** As prom-client's Histogram gives it: each series' cumulative buckets, `+Inf`, sum and count. */
	async get(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
		this.#countNoted();
		const values: MetricValueWithName<string>[] = [];
		const bucketName = `${this.name}_bucket`;
		for (const ofRoute of this.#series.values())
			for (const { labels, inBucket, sum, count } of ofRoute.values()) {
				let cumulative = 0;
				for (const [index, bound] of BUCKETS.entries()) {
					cumulative += inBucket[index];
					values.push({
						metricName: bucketName,
						labels: { ...labels, le: bound },
						value: cumulative,
					});
				}
				values.push({ metricName: bucketName, labels: { ...labels, le: '+Inf' }, value: count });
				values.push({ metricName: `${this.name}_sum`, labels, value: sum });
				values.push({ metricName: `${this.name}_count`, labels, value: count });
			}
		const { name, help, type, aggregator } = this;
		// prom-client types `type` as an enum, where its metrics answer this string.
		return { name, help, type, values, aggregator } as unknown as MetricObjectWithValues<
			MetricValueWithName<string>
		>;
	}

	/** Registered in a Registry, which takes any object that answers `get()` as its metrics do. */
	asMetric(): Metric {
		return this as unknown as Metric;
	}
}
