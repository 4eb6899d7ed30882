import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawnServer } from '../../tooling/api/server-process';
import { N8nClient } from '../../tooling/n8n/client';
import { ensureN8n, packPackage } from '../../tooling/n8n/install';
import { tempRoot } from '../../tooling/processes';
import { LossyProxy } from '../support/lossy-proxy';
import { OtlpReceiver } from '../support/otlp-receiver';
import { Receiver } from '../support/receiver';
import { E2e, type Topology } from './context';
import { activityScenarios, startPollingEarly } from './scenarios/activity';
import { aiToolScenarios } from './scenarios/ai';
import { bulkScenarios } from './scenarios/bulk';
import { n8nBehaviourScenarios } from './scenarios/n8n-behaviours';
import { operationScenarios } from './scenarios/operations';
import { operateWebhookScenarios } from './scenarios/operate-webhooks';
import { credentialTestScenarios } from './scenarios/credential-test';
import { oncePerEventScenarios } from './scenarios/once-per-event';
import { outageScenarios } from './scenarios/outages';
import { editorScenarios, replayScenarios } from './scenarios/replay';
import { restoredN8nScenarios } from './scenarios/restored-n8n';
import { traceScenarios } from './scenarios/traces';
import { triggerScenarios } from './scenarios/trigger';
import { workflowActionScenarios } from './scenarios/workflow-actions';

/**
 * Every scenario, against the n8n pinned as `topology.pin` in `topology` with the packed package
 * installed and one API server (rate limit 60 requests per 10 s, retries within seconds), all on
 * free loopback ports, driven over HTTP. Each scenario module gets the suite's context (context.ts).
 */
export function endToEndSuite(topology: Topology): void {
	const e2e = suiteContext(topology, 'full');
	operationScenarios(e2e);
	bulkScenarios(e2e);
	triggerScenarios(e2e);
	outageScenarios(e2e);
	credentialTestScenarios(e2e);
	activityScenarios(e2e);
	aiToolScenarios(e2e);
	oncePerEventScenarios(e2e);
	replayScenarios(e2e);
	workflowActionScenarios(e2e);
	// One process: its database is a file that a backup can replace.
	if (!topology.queue) restoredN8nScenarios(e2e);
	n8nBehaviourScenarios(e2e);
	// n8n's editor in Chromium; in queue mode a test webhook is served by main, not the webhook process.
	if (topology.pin === '2.x' && !topology.queue) editorScenarios(e2e);
	if (topology.pin === '2.x' && !topology.queue) operateWebhookScenarios(e2e);
}

/**
 * What the package needs of every n8n it supports, for the oldest release of each line (and, weekly,
 * the newest release): installed as n8n's community-package installer does, the credential test, an
 * operation of every resource, failed items on the error output, the trigger delivering signed
 * events and refusing forged ones, the Activity Trigger, the node as an AI Agent's tool, one Training
 * Lab create per event when n8n is killed in a burst, and each n8n behaviour the package relies on.
 */
export function compatibilitySuite(topology: Topology): void {
	const e2e = suiteContext(topology, 'compatibility');
	operationScenarios(e2e);
	bulkScenarios(e2e);
	triggerScenarios(e2e);
	workflowActionScenarios(e2e);
	credentialTestScenarios(e2e);
	activityScenarios(e2e);
	aiToolScenarios(e2e);
	oncePerEventScenarios(e2e);
	n8nBehaviourScenarios(e2e);
}

/**
 * One trace from an API request into the n8n execution it starts, on an n8n 2.x of its own with
 * tracing on, apart from the full suite, whose kills left executions "running" for good while
 * n8n traced (docs/testing.md, the n8n2-traces row).
 */
export function tracesSuite(topology: Topology): void {
	traceScenarios(suiteContext(topology, 'traces'));
}

/** The suite's context, with n8n, the API server and the receivers started before its tests and stopped after. */
function suiteContext(topology: Topology, scope: E2e['scope']): E2e {
	const e2e = new E2e(topology, scope);

	beforeAll(async () => {
		e2e.work = tempRoot();
		const install = ensureN8n(topology.pin);
		const tarball = packPackage(e2e.work);
		e2e.databasePath = join(e2e.work, 'api.sqlite');
		if (e2e.traced) e2e.collector = await OtlpReceiver.start();
		const collector = e2e.collector?.url;
		e2e.api = await spawnServer(
			{
				...(collector ? { OTEL_EXPORTER_OTLP_ENDPOINT: collector } : {}),
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
		e2e.n8n = await topology.start(
			install,
			e2e.work,
			tarball,
			collector ? { N8N_OTEL_ENABLED: 'true', N8N_OTEL_EXPORTER_OTLP_ENDPOINT: collector } : {},
		);
		e2e.client = new N8nClient(e2e.n8n);
		await e2e.client.login();
		if (scope !== 'traces') await startPollingEarly(e2e);
	}, 20 * 60_000);

	beforeEach(() => e2e.testStarts());
	afterEach(() => e2e.testEnded());

	afterAll(async () => {
		await e2e.n8n?.stop();
		await e2e.api?.stop();
		await e2e.proxy?.stop();
		await e2e.notices?.stop();
		await e2e.collector?.stop();
		if (e2e.work && !process.env.TRAININGLAB_E2E_KEEP)
			rmSync(e2e.work, { recursive: true, force: true });
		else if (e2e.work) console.log(`e2e files kept in ${e2e.work}`);
	});
	return e2e;
}
