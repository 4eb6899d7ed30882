import autocannon from 'autocannon';

export interface LoadResult {
	requestsPerSecond: number;
	/** Requests answered in all (not counting the warm-up). */
	requests: number;
	p50Ms: number;
	p99Ms: number;
	errors: number;
}

/** Load from this process (the server runs in its own): autocannon, after a warm-up (1 s unless told; none with `warmUp: false`). */
export async function load(options: {
	url: string;
	key: string;
	connections: number;
	seconds: number;
	method?: 'GET' | 'POST';
	body?: unknown;
	warmUp?: boolean;
	warmUpSeconds?: number;
}): Promise<LoadResult> {
	const request = {
		url: options.url,
		connections: options.connections,
		method: options.method ?? 'GET',
		headers: {
			authorization: `Bearer ${options.key}`,
			...(options.body ? { 'content-type': 'application/json' } : {}),
		},
		body: options.body ? JSON.stringify(options.body) : undefined,
	};
	if (options.warmUp !== false)
		await autocannon({ ...request, duration: options.warmUpSeconds ?? 1 });
	const result = await autocannon({ ...request, duration: options.seconds });
	return {
		requestsPerSecond: Math.round(result.requests.average),
		requests: result.requests.total,
		p50Ms: result.latency.p50,
		p99Ms: result.latency.p99,
		errors: result.errors + result.timeouts + result.non2xx,
	};
}
