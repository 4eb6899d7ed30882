import { join } from 'node:path';
import { installTarball, startQueueN8n } from '../support/real-n8n';
import { endToEndSuite } from './scenarios';
import { ensureDebianServices, startPostgres, startRedis, type Service } from './services';

// n8n scaled out: main (editor, APIs, triggers, polls), two workers running executions from a Redis
// queue, one webhook process receiving production webhooks, PostgreSQL as the database.
endToEndSuite({
	async start(n8nDir, work, tarball) {
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
				n8nDir,
				join(work, 'n8n'),
				(userFolder) => installTarball(userFolder, tarball),
				{ postgresPort: postgres.port, redisPort: redis.port },
			);
			return {
				...n8n,
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
});
