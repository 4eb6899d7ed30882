import type { IHookFunctions, INodeProperties, IWebhookFunctions } from 'n8n-workflow';
import type { EventType } from '../shared/api';
import { TRIGGER_EVENT_OPTIONS } from './events';

/** Values of the Acknowledge Deliveries option. */
export const ACK_WHEN_FINISHED = 'whenFinished';
const ACK_ON_RECEIPT = 'onReceipt';
const DEFAULT_GIVE_UP_MINUTES = 5;

/** Values of the Events While Inactive option. */
export const WHILE_INACTIVE_RUN = 'run';
export const WHILE_INACTIVE_SKIP = 'skip';

export interface TriggerOptions {
	sampleWhenListening?: boolean;
	runOnTestEvents?: boolean;
}

/** The node's parameters. */
export const triggerProperties: INodeProperties[] = [
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		required: true,
		default: ['member.removed'],
		options: TRIGGER_EVENT_OPTIONS,
		description: 'The events that start the workflow',
	},
	{
		displayName: 'Acknowledge Deliveries',
		name: 'acknowledge',
		type: 'options',
		default: ACK_ON_RECEIPT,
		options: [
			{
				name: 'On Receipt',
				value: ACK_ON_RECEIPT,
				description:
					'Answer as soon as the delivery is verified, for workflows that run long or wait. An execution lost to a crash of n8n is not delivered again.',
			},
			{
				name: 'When the Workflow Has Finished',
				value: ACK_WHEN_FINISHED,
				description:
					'The API counts an event as delivered only once its execution has finished, and delivers it again if n8n, a worker or Redis went down before. The workflow must finish within the delivery timeout of the API (10 s by default); one that fails or takes longer is delivered again.',
			},
		],
		description: 'When n8n tells the Training Lab API that an event has arrived',
	},
	eventsWhileInactive(WHILE_INACTIVE_SKIP, [1]),
	eventsWhileInactive(WHILE_INACTIVE_RUN, [{ _cnd: { gte: 1.1 } }]),
	{
		displayName: 'Give Up on an Unfinished Execution After (Minutes)',
		name: 'giveUpAfterMinutes',
		type: 'number',
		default: DEFAULT_GIVE_UP_MINUTES,
		typeOptions: { minValue: 0.1, numberPrecision: 1 },
		displayOptions: { show: { acknowledge: [ACK_WHEN_FINISHED] } },
		description:
			'While an execution has not finished, a repeat of its event is answered 503. After this long the execution is taken as lost (say its queue job went with a restart of a Redis that keeps nothing) and the next repeat runs the workflow again. Set it above the longest time the workflow takes.',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Run on Test Events',
				name: 'runOnTestEvents',
				type: 'boolean',
				default: false,
				description:
					'Whether the active workflow runs for test events (sample events sent with Send Test Event in the Training Lab console, API or node). Off: they are acknowledged and ignored. While you listen for a test event in the editor they always run.',
			},
			{
				displayName: 'Send a Sample When Listening',
				name: 'sampleWhenListening',
				type: 'boolean',
				default: true,
				description:
					'Whether Listen for Test Event asks the Training Lab API for a test event of the first selected type, so you need not cause a real one. It carries sample values (example.com addresses) and "test": true, and changes nothing in Training Lab. Off: the editor waits for a real event.',
			},
		],
	},
	{
		displayName:
			'Every delivery is verified with the signing secret of the webhook endpoint this node registers; forged or replayed requests are answered 401. An event can run more than once (its webhook_id stays the same). Training Lab creates in this workflow are keyed on the event and happen once; give other systems the webhook_id as their idempotency key. Do not drop repeats with Remove Duplicates before the effect: a crash between the two loses the event.',
		name: 'signatureNotice',
		type: 'notice',
		default: '',
	},
];

/**
 * How long a repeat waits on an unanswered execution. Answered on receipt, an execution is answered
 * at once; the default then only matters for an execution n8n held up while it started.
 */
export function giveUpAfterMs(this: IWebhookFunctions): number {
	return (this.getNodeParameter('giveUpAfterMinutes', DEFAULT_GIVE_UP_MINUTES) as number) * 60_000;
}

export function selectedEvents(this: IHookFunctions | IWebhookFunctions): EventType[] {
	return this.getNodeParameter('events', []) as EventType[];
}

export function triggerOptions(this: IHookFunctions | IWebhookFunctions): TriggerOptions {
	return this.getNodeParameter('options', {}) as TriggerOptions;
}

/** Events While Inactive, whose default depends on the node's version. */
function eventsWhileInactive(
	defaultValue: string,
	versions: NonNullable<NonNullable<INodeProperties['displayOptions']>['show']>['@version'],
): INodeProperties {
	return {
		displayName: 'Events While Inactive',
		name: 'eventsWhileInactive',
		type: 'options',
		default: defaultValue,
		displayOptions: { show: { '@version': versions } },
		options: [
			{
				name: 'Run Them When Activated',
				value: WHILE_INACTIVE_RUN,
				description:
					'The Training Lab API keeps the events that happen while this workflow is inactive, and activating it runs each',
			},
			{
				name: 'Skip Them',
				value: WHILE_INACTIVE_SKIP,
				description:
					'Activating the workflow skips the events of the time it was inactive. They stay recoverable: Webhook → Recover Deliveries.',
			},
		],
		description:
			'What activating this workflow does with the events that happened while it was inactive. Saving an active workflow never skips anything: an event during the save runs after it.',
	};
}
