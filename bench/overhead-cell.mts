import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadSession } from './support.mts';

/** The token `/metrics` asks for on the servers the overhead tools start with metrics on. */
export const TOKEN = 'bench-metrics-token-0123456789';

/** The request cells of the overhead benchmark (bench/observability.mts), as its tools name them. */
export const REQUEST_CELLS = ['/me', '/sessions/{id}', '/sessions?limit=100', 'POST /sessions'];

/**
 * A request cell of the overhead benchmark (bench/observability.mts) and of the tools that look
 * into it: one of REQUEST_CELLS, `/me` by default. `{id}` is the middle one of `sessionIds`; a
 * POST creates a session of `versionId`.
 */
export function overheadCell(
	name = REQUEST_CELLS[0],
	{ versionId, sessionIds }: { versionId: string; sessionIds: string[] },
) {
	const method = name.startsWith('POST ') ? ('POST' as const) : ('GET' as const);
	const path = (method === 'POST' ? name.slice('POST '.length) : name).replace(
		'{id}',
		sessionIds[sessionIds.length >> 1],
	);
	const body = method === 'POST' ? loadSession(versionId) : undefined;
	return {
		name: `${method} ${name.replace(/^POST /, '')}`,
		method,
		path,
		body,
		/** What `load` (bench/load.mts) sends to the server at `url` with `key`. */
		request: (url: string, key: string) => ({ url: `${url}${path}`, key, method, body }),
	};
}

/**
 * The environment of a server of the overhead benchmark on a copy of the data at `databasePath`:
 * off (the defaults), or on, scraped with TOKEN and exporting spans to `collectorUrl`.
 */
export function overheadServerEnv(
	mode: 'off' | 'on',
	databasePath: string,
	collectorUrl: string,
): Record<string, string> {
	return {
		DATABASE_PATH: databasePath,
		RATE_LIMIT_REQUESTS: '1000000000',
		...(mode === 'on'
			? {
					METRICS_ENABLED: 'true',
					METRICS_TOKEN: TOKEN,
					OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
				}
			: {}),
	};
}

/** An OTLP collector that takes every export and keeps nothing. */
export async function startSinkCollector(): Promise<{ url: string; close: () => void }> {
	const collector = createServer((req, res) => {
		req.resume();
		req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
	});
	collector.listen(0, '127.0.0.1');
	await once(collector, 'listening');
	return {
		url: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
		close: () => collector.close(),
	};
}
