import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installDebianPackages } from '../../tooling/debian.ts';
import { eventually } from '../../tooling/eventually.ts';
import { freePort, spawnLogged, tail, type Process } from '../../tooling/processes.ts';

const PROMETHEUS = '/usr/bin/prometheus';

/** Debian's `prometheus` (with `promtool`), installed when missing. */
export function ensurePrometheus(): void {
	if (!existsSync(PROMETHEUS)) installDebianPackages(['prometheus'], 'The Prometheus tests');
}

/** One series of an instant query's answer. */
export interface Series {
	metric: Record<string, string>;
	value: number;
}

/** An alert as Prometheus' `/api/v1/alerts` lists it. */
export interface Alert {
	labels: { alertname: string } & Record<string, string>;
	state: 'pending' | 'firing';
}

/**
 * Debian's Prometheus, run by the test on a free loopback port with its data in a temp folder,
 * scraping one target every second with `ruleFiles` evaluated every second; stopped by PID.
 */
export class Prometheus {
	readonly url: string;
	readonly #process: Process;
	readonly #dir: string;

	private constructor(url: string, process: Process, dir: string) {
		this.url = url;
		this.#process = process;
		this.#dir = dir;
	}

	/** Starts it scraping `target` (`http://host:port`, `/metrics`, with `token` as a Bearer token). */
	static async start(target: string, token: string, ruleFiles: string[]): Promise<Prometheus> {
		ensurePrometheus();
		const dir = mkdtempSync(join(tmpdir(), 'traininglab-prometheus-'));
		const config = join(dir, 'prometheus.yml');
		writeFileSync(
			config,
			JSON.stringify({
				global: { scrape_interval: '1s', evaluation_interval: '1s' },
				rule_files: ruleFiles,
				scrape_configs: [
					{
						job_name: 'traininglab',
						metrics_path: '/metrics',
						authorization: { type: 'Bearer', credentials: token },
						static_configs: [{ targets: [new URL(target).host] }],
					},
				],
			}),
		);
		const port = await freePort();
		const log = join(dir, 'prometheus.log');
		const process = spawnLogged(
			PROMETHEUS,
			[
				`--config.file=${config}`,
				`--storage.tsdb.path=${join(dir, 'data')}`,
				`--web.listen-address=127.0.0.1:${port}`,
			],
			{ cwd: dir, env: { PATH: '/usr/bin:/bin' }, log },
		);
		const url = `http://127.0.0.1:${port}`;
		try {
			await eventually(
				async () => {
					if (process.child.exitCode !== null) throw new Error(`prometheus exited:\n${tail(log)}`);
					return (await fetch(`${url}/-/ready`).catch(() => undefined))?.status === 200;
				},
				'Prometheus to be ready',
				{ timeoutMs: 60_000 },
			);
		} catch (error) {
			await process.stop();
			throw error;
		}
		const prometheus = new Prometheus(url, process, dir);
		// Its first scrape comes a few seconds after it is ready (targets are applied every 5 s):
		// what happens before it would show only as a series that starts high, hiding its rise.
		await prometheus.scrapedAfter(0);
		return prometheus;
	}

	/** An instant PromQL query: each series with its value (NaN stays NaN). */
	async query(expression: string): Promise<Series[]> {
		const data = await this.#api<{ resultType: string; result: any }>(
			`/api/v1/query?query=${encodeURIComponent(expression)}`,
		);
		if (data.resultType === 'scalar') return [{ metric: {}, value: Number(data.result[1]) }];
		return (data.result as Array<{ metric: Record<string, string>; value: [number, string] }>).map(
			(series) => ({ metric: series.metric, value: Number(series.value[1]) }),
		);
	}

	/** The value of a query that answers one series (or a scalar). */
	async value(expression: string): Promise<number> {
		const series = await this.query(expression);
		if (series.length !== 1)
			throw new Error(`${expression} gave ${series.length} series: ${JSON.stringify(series)}`);
		return series[0].value;
	}

	/** Waits until a scrape of the target has succeeded that started after `since` (Unix ms). */
	async scrapedAfter(since: number): Promise<void> {
		await eventually(
			async () => {
				// timestamp() of a plain selector is the sample's (of an expression, the query's time).
				const [scraped] = await this.query('timestamp(up{job="traininglab"})');
				const [up] = await this.query('up{job="traininglab"}');
				return scraped !== undefined && scraped.value * 1000 > since && up.value === 1;
			},
			'Prometheus to scrape the server',
			{ timeoutMs: 30_000 },
		);
	}

	async alerts(): Promise<Alert[]> {
		return (await this.#api<{ alerts: Alert[] }>('/api/v1/alerts')).alerts;
	}

	async stop(): Promise<void> {
		await this.#process.stop();
		rmSync(this.#dir, { recursive: true, force: true });
	}

	async #api<T>(path: string): Promise<T> {
		const response = await fetch(`${this.url}${path}`);
		const body = (await response.json()) as { status: string; data: T; error?: string };
		if (body.status !== 'success') throw new Error(`Prometheus ${path}: ${body.error}`);
		return body.data;
	}
}
