import type { IWebhookFunctions } from 'n8n-workflow';
import { claimDelivery } from '../../nodes/TrainingLabTrigger/repeatGuard';

// The trigger's memory of deliveries, with the clock given to it and n8n's answer played by hand:
// a repeat must wait while the first run is unanswered, be acknowledged once that run was answered
// 2xx, and run again when that run failed or was abandoned.

/** What claimDelivery uses of n8n's webhook context, for one delivery; `answer` is n8n answering it. */
function delivery(workflowId = 'workflow-1') {
	const response = { statusCode: 200, end: () => response };
	const context = {
		getWorkflow: () => ({ id: workflowId }),
		getNode: () => ({ id: 'node-1' }),
		getResponseObject: () => response,
	} as unknown as IWebhookFunctions;
	return {
		context,
		answer(status: number) {
			response.statusCode = status;
			response.end();
		},
	};
}

const MINUTE = 60_000;
const GIVE_UP = 5 * MINUTE; // the trigger's default
let event = 0;
const nextEvent = () => `evt-${++event}`;

it('a repeat while the first run is unanswered is refused; once it was answered 2xx, acknowledged', () => {
	const id = nextEvent();
	const first = delivery();
	expect(claimDelivery(first.context, id, 0, GIVE_UP)).toBe('new');
	expect(claimDelivery(delivery().context, id, MINUTE, GIVE_UP)).toBe('running');
	first.answer(200);
	expect(claimDelivery(delivery().context, id, 2 * MINUTE, GIVE_UP)).toBe('done');
});

it('after the first run was answered with an error, the repeat runs', () => {
	const id = nextEvent();
	const first = delivery();
	claimDelivery(first.context, id, 0, GIVE_UP);
	first.answer(500);
	expect(claimDelivery(delivery().context, id, MINUTE, GIVE_UP)).toBe('new');
});

it('a run unanswered for more than the default 5 minutes is given up: the repeat runs, and the late answer changes nothing', () => {
	const id = nextEvent();
	const first = delivery();
	claimDelivery(first.context, id, 0, GIVE_UP);
	expect(claimDelivery(delivery().context, id, 5 * MINUTE, GIVE_UP)).toBe('running');
	const second = delivery();
	expect(claimDelivery(second.context, id, 5 * MINUTE + 1, GIVE_UP)).toBe('new');
	first.answer(500); // the abandoned run ends after all
	expect(claimDelivery(delivery().context, id, 6 * MINUTE, GIVE_UP)).toBe('running');
	second.answer(200);
	expect(claimDelivery(delivery().context, id, 7 * MINUTE, GIVE_UP)).toBe('done');
});

it("another workflow's trigger runs the same event too", () => {
	const id = nextEvent();
	claimDelivery(delivery('workflow-1').context, id, 0, GIVE_UP);
	expect(claimDelivery(delivery('workflow-2').context, id, 0, GIVE_UP)).toBe('new');
});

it('forgets what it saw 48 hours ago', () => {
	const id = nextEvent();
	const first = delivery();
	claimDelivery(first.context, id, 0, GIVE_UP);
	first.answer(200);
	expect(claimDelivery(delivery().context, id, 47 * 60 * MINUTE, GIVE_UP)).toBe('done');
	expect(claimDelivery(delivery().context, nextEvent(), 49 * 60 * MINUTE, GIVE_UP)).toBe('new');
	expect(claimDelivery(delivery().context, id, 49 * 60 * MINUTE, GIVE_UP)).toBe('new');
});

it('gives up after the time the trigger is set to, not before', () => {
	const id = nextEvent();
	claimDelivery(delivery().context, id, 0, 30_000);
	expect(claimDelivery(delivery().context, id, 30_000, 30_000)).toBe('running');
	expect(claimDelivery(delivery().context, id, 30_001, 30_000)).toBe('new');
});
