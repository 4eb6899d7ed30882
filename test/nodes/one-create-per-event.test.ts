import { randomUUID } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';
import type { TestOrg } from '../support/fixtures';
import type { TestServer } from '../support/test-server';
import { createSessionParameters, json } from '../support/node-runner';
import { retryAfterCrash, retryExecution, runTrainingLab, type RunOptions } from '../support/n8n';
import type { LossyProxy } from '../support/lossy-proxy';
import { serverBehindProxy, sessionsTitled as countTitled } from './support/server-behind-proxy';

// A create in a workflow started by a Training Lab event is keyed on that event: however often n8n
// runs the event (the API's redelivery, n8n's re-run at start, a retry by hand, a second webhook
// process), the API creates once. Each run below is a separate execution through n8n-core, started
// by a Training Lab trigger's item as n8n starts a webhook or poll execution.

let server: TestServer;
let proxy: LossyProxy;
let org: TestOrg;
serverBehindProxy((parts) => ({ server, proxy, org } = parts));

const credentials = () => ({ baseUrl: proxy.url, apiKey: org.admin.key! });
/** Create Session titled after the member the event is about (or `title`). */
const createSession = (title = '=Onboarding {{ $json.data.email }}', extra: IDataObject = {}) =>
	createSessionParameters(org.publishedVersionId, title, extra);
const sessionsTitled = (title: string) => countTitled(server, title);
const posts = () => proxy.exchanges.filter((exchange) => exchange.method === 'POST');

/** A member.removed event as the Training Lab Trigger outputs it (webhook_id = the event id). */
function removalEvent(email: string): IDataObject {
	const id = randomUUID();
	return {
		webhook_id: id,
		id,
		type: 'member.removed',
		occurred_at: new Date().toISOString(),
		org_id: org.id,
		actor: 'admin@x.test',
		data: { user_id: randomUUID(), email, role: 'trainer' },
	};
}

/** The same event as the Activity Trigger outputs it (no webhook_id). */
function asActivityItem(event: IDataObject): IDataObject {
	const { webhook_id: _, ...item } = event;
	return item;
}

const byTrigger = (events: IDataObject[]): RunOptions => ({
	credentials: credentials(),
	startedBy: { trigger: 'trainingLabTrigger', events },
});

describe('a create keyed on the Training Lab event its item comes from', () => {
	it('the same event run again in another execution (a redelivery, a re-run at start) creates nothing twice', async () => {
		const event = removalEvent('ann@x.test');
		const first = await runTrainingLab(createSession(), byTrigger([event]));
		const second = await runTrainingLab(createSession(), byTrigger([event]));
		expect(first.error).toBeUndefined();
		expect(second.executionId).not.toBe(first.executionId);
		expect(json(second)).toEqual(json(first));
		expect(posts().map((exchange) => exchange.replayed)).toEqual([false, true]);
		expect(sessionsTitled('Onboarding ann@x.test')).toBe(1);
	});

	it('a resend a person asked for (the event again, marked resend) runs again and replays the first create', async () => {
		const event = removalEvent('res@x.test');
		const first = await runTrainingLab(createSession(), byTrigger([event]));
		const resent = await runTrainingLab(createSession(), byTrigger([{ ...event, resend: 1 }]));
		expect(resent.error).toBeUndefined();
		expect(json(resent)).toEqual(json(first));
		expect(posts().map((exchange) => exchange.replayed)).toEqual([false, true]);
		expect(sessionsTitled('Onboarding res@x.test')).toBe(1);
	});

	it('another event with the same fields creates again', async () => {
		await runTrainingLab(createSession('Same title'), byTrigger([removalEvent('a@x.test')]));
		await runTrainingLab(createSession('Same title'), byTrigger([removalEvent('a@x.test')]));
		expect(sessionsTitled('Same title')).toBe(2);
	});

	it("a retry by hand of the execution that died after its create replays the first one's session", async () => {
		const event = removalEvent('bob@x.test');
		// Every answer to the create is lost, more often than the transport repeats it: the execution
		// fails after the API created the session, as one that n8n's crash ended would.
		proxy.lose = (req) => req.method === 'POST';
		proxy.losses = 3;
		const failed = await runTrainingLab(createSession(), byTrigger([event]));
		expect(failed.error).toMatchObject({ name: 'NodeApiError' });
		expect(sessionsTitled('Onboarding bob@x.test')).toBe(1);

		const retried = await runTrainingLab(createSession(), {
			...byTrigger([event]),
			startFrom: retryExecution(failed),
		});
		expect(retried.error).toBeUndefined();
		expect(posts().at(-1)).toMatchObject({ status: 201, replayed: true });
		expect(sessionsTitled('Onboarding bob@x.test')).toBe(1);
	});

	it('a retry by hand of an execution n8n marked crashed (its recovered runs before) replays the session', async () => {
		const event = removalEvent('dee@x.test');
		await runTrainingLab(createSession(), byTrigger([event]));
		const retried = await runTrainingLab(createSession(), {
			...byTrigger([event]),
			startFrom: retryAfterCrash(['Member removed', 'Training Lab']),
		});
		expect(retried.error).toBeUndefined();
		expect(retried.run.data.resultData.runData['Training Lab']).toHaveLength(2);
		expect(posts().map((exchange) => exchange.replayed)).toEqual([false, true]);
		expect(sessionsTitled('Onboarding dee@x.test')).toBe(1);
	});

	it('Retry On Fail within the execution creates once', async () => {
		proxy.lose = (req) => req.method === 'POST';
		proxy.losses = 3;
		const result = await runTrainingLab(createSession(), {
			...byTrigger([removalEvent('cy@x.test')]),
			settings: { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 },
		});
		expect(result.error).toBeUndefined();
		expect(new Set(posts().map((exchange) => exchange.idempotencyKey)).size).toBe(1);
		expect(sessionsTitled('Onboarding cy@x.test')).toBe(1);
	});

	it('Activity Trigger: a poll that emits an event again, among others and in another place, creates once per event', async () => {
		const [early, late, newer] = ['d1@x.test', 'd2@x.test', 'd3@x.test'].map((email) =>
			asActivityItem(removalEvent(email)),
		);
		const activity = (events: IDataObject[]): RunOptions => ({
			credentials: credentials(),
			startedBy: { trigger: 'trainingLabActivityTrigger', events },
		});
		await runTrainingLab(createSession(), activity([early, late]));
		const again = await runTrainingLab(createSession(), activity([late, newer, early]));
		expect(again.error).toBeUndefined();
		expect(
			['d1@x.test', 'd2@x.test', 'd3@x.test'].map((e) => sessionsTitled(`Onboarding ${e}`)),
		).toEqual([1, 1, 1]);
		expect(posts().map((exchange) => exchange.replayed)).toEqual([false, false, true, false, true]);
	});

	it('several items of one event (a Split Out) each create, and a second run of the event creates none of them again', async () => {
		const event = { ...removalEvent('eve@x.test'), rows: [{ n: 1 }, { n: 1 }, { n: 2 }] };
		const fanOut = (): RunOptions => ({
			credentials: credentials(),
			startedBy: { trigger: 'trainingLabTrigger', events: [event], through: 'test.fanOut' },
		});
		const title = '=Fan out {{ $json.n }}';
		await runTrainingLab(createSession(title), fanOut());
		await runTrainingLab(createSession(title), fanOut());
		// Two alike items of one event are two intents; the second run replays all three.
		expect([sessionsTitled('Fan out 1'), sessionsTitled('Fan out 2')]).toEqual([2, 1]);
		expect(posts().map((exchange) => exchange.replayed)).toEqual([
			false,
			false,
			false,
			true,
			true,
			true,
		]);
	});

	it('an item whose lineage to the trigger is lost is keyed on its execution, as without a trigger', async () => {
		const event = removalEvent('fay@x.test');
		const dropped = (): RunOptions => ({
			credentials: credentials(),
			startedBy: { trigger: 'trainingLabTrigger', events: [event], through: 'test.dropLineage' },
		});
		await runTrainingLab(createSession(), dropped());
		await runTrainingLab(createSession(), dropped());
		expect(sessionsTitled('Onboarding fay@x.test')).toBe(2);
	});

	it("the user's own Idempotency Key still wins over the event", async () => {
		const parameters = createSession('Own key', {
			additionalFields: { idempotencyKey: '={{ $json.data.email }}-own' },
		});
		await runTrainingLab(parameters, byTrigger([removalEvent('gus@x.test')]));
		await runTrainingLab(parameters, byTrigger([removalEvent('gus@x.test')]));
		expect(posts().map((exchange) => exchange.idempotencyKey)).toEqual([
			'gus@x.test-own',
			'gus@x.test-own',
		]);
		expect(sessionsTitled('Own key')).toBe(1);
	});
});
