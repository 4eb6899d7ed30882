import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawnServer } from '../../tooling/api/server-process';
import { N8nClient } from '../../tooling/n8n/client';
import { ensureN8n, packPackage } from '../../tooling/n8n/install';
import { tempRoot } from '../../tooling/processes';
import { LossyProxy } from '../support/lossy-proxy';
import { Receiver } from '../support/receiver';
import { E2e, type Topology } from './context';
import { activityScenarios, startPollingEarly } from './scenarios/activity';
import { aiToolScenarios } from './scenarios/ai';
import { bulkScenarios } from './scenarios/bulk';
import { credentialTestScenarios } from './scenarios/credential-test';
import { oncePerEventScenarios } from './scenarios/once-per-event';
import { outageScenarios } from './scenarios/outages';
import { editorScenarios, replayScenarios } from './scenarios/replay';
import { triggerScenarios } from './scenarios/trigger';

/**
 * Every scenario, against a real n8n of `topology.line` in `topology` with the packed package
 * installed and one API server (rate limit 60 requests per 10 s, retries within seconds), all on
 * free loopback ports, driven over HTTP. Each scenario module gets the suite's context (context.ts).
 */
export function endToEndSuite(topology: Topology): void {
	const e2e = new E2e(topology);

	beforeAll(async () => {
		e2e.work = tempRoot();
		const install = ensureN8n(topology.line);
		const tarball = packPackage(e2e.work);
		e2e.databasePath = join(e2e.work, 'api.sqlite');
		e2e.api = await spawnServer(
			{
				DATABASE_PATH: e2e.databasePath,
				WEBHOOK_ALLOW_INSECURE_URLS: 'true',
				RATE_LIMIT_REQUESTS: '60',
				RATE_LIMIT_WINDOW_S: '10',
				// Retries within minutes rather than hours, so that n8n's downtime is waited out in a test.
				WEBHOOK_RETRY_SCHEDULE_S: ['1,2,4,8', ...Array(24).fill('10')].join(','),
			},
			'node',
			join(e2e.work, 'api-server.log'),
		);
		e2e.proxy = await LossyProxy.start(e2e.api.url);
		e2e.notices = await Receiver.start();
		e2e.n8n = await topology.start(install, e2e.work, tarball);
		e2e.client = new N8nClient(e2e.n8n);
		await e2e.client.login();
		await startPollingEarly(e2e);
	}, 20 * 60_000);

	beforeEach(() => e2e.testStarts());
	afterEach(() => e2e.testEnded());

	afterAll(async () => {
		await e2e.n8n?.stop();
		await e2e.api?.stop();
		await e2e.proxy?.stop();
		await e2e.notices?.stop();
		if (e2e.work && !process.env.TRAININGLAB_E2E_KEEP)
			rmSync(e2e.work, { recursive: true, force: true });
		else if (e2e.work) console.log(`e2e files kept in ${e2e.work}`);
	});

	bulkScenarios(e2e);
	triggerScenarios(e2e);
	outageScenarios(e2e);
	credentialTestScenarios(e2e);
	activityScenarios(e2e);
	aiToolScenarios(e2e);
	oncePerEventScenarios(e2e);
	replayScenarios(e2e);
	// n8n's editor in Chromium; in queue mode a test webhook is served by main, not the webhook process.
	if (topology.line === '2.x' && !topology.queue) editorScenarios(e2e);
}
