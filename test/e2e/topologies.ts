import { join } from 'node:path';
import { type N8nPin } from '../../tooling/n8n/pins';
import { installTarball } from '../../tooling/n8n/install';
import { startN8n, startQueueN8n } from '../../tooling/n8n/processes';
import type { Topology } from './context';
import { ensureDebianServices, startPostgres, startRedis, type Service } from './services';

/** Executions one n8n process runs at once; the suite's other scenarios stay below it. */
const CONCURRENCY_LIMIT = 12;

/**
 * n8n as most people run it: one process on SQLite serving the editor, the APIs and webhooks, and
 * running every execution. Webhooks reach it through a readiness gate, as behind a load balancer or
 * a Kubernetes readiness probe (test/support/readiness-gate.ts says why).
 */
export function singleProcess(pin: N8nPin): Topology {
	return {
		pin,
		async start(install, work, tarball, env) {
			const userFolder = join(work, 'n8n-user');
			installTarball(userFolder, tarball);
			return await startN8n(install, userFolder, {
				readinessGate: true,
				// A production concurrency limit, as on n8n Cloud: a burst beyond it waits to begin
				// (status "new"), which n8n runs itself when it starts after a crash.
				env: { N8N_CONCURRENCY_PRODUCTION_LIMIT: String(CONCURRENCY_LIMIT), ...env },
			});
		},
		executors: ['main'],
		queue: false,
	};
}

/**
 * n8n scaled out: main (editor, APIs, triggers, polls), two workers running executions from a Redis
 * queue, one webhook process receiving production webhooks through a readiness gate, PostgreSQL as
 * the database.
 */
export function queueMode(pin: N8nPin): Topology {
	return {
		pin,
		async start(install, work, tarball) {
			ensureDebianServices();
			const services: Service[] = [];
			const stopServices = async () => {
				for (const service of services.reverse()) await service.stop();
			};
			try {
				const postgres = await startPostgres(join(work, 'postgres'));
				services.push(postgres);
				const redis = await startRedis(join(work, 'redis'));
				services.push(redis);
				const n8n = await startQueueN8n(
					install,
					join(work, 'n8n'),
					(userFolder) => installTarball(userFolder, tarball),
					{ postgresPort: postgres.port, redisPort: redis.port },
				);
				return {
					...n8n,
					redis,
					async stop() {
						await n8n.stop();
						await stopServices();
					},
				};
			} catch (error) {
				await stopServices();
				throw error;
			}
		},
		executors: ['worker-1', 'worker-2'],
		queue: true,
	};
}
