import { createHash, randomUUID } from 'node:crypto';
import type { IDataObject, IExecuteFunctions, IWorkflowExecutionCustomData } from 'n8n-workflow';

/**
 * The Idempotency-Key of a create: one key per intent, the same wherever n8n runs that intent again.
 *
 * An item that descends from a Training Lab event (n8n's paired-item lineage back to an item of the
 * Training Lab Trigger or the Activity Trigger) is keyed on that event: the API's redelivery after a
 * crash, n8n's own re-run of the executions it had enqueued, a retry of a crashed or failed execution,
 * Retry On Fail and a second webhook process all run the same event, and create once. Any other item
 * is keyed on its execution (see runOf). Within that, the key tells apart the workflow and node, the
 * run of the node (a loop, each tool call of an AI Agent), the item's place among the items of the
 * same event (or the execution) and what is created (path and body).
 */
export function idempotencyKeyFor(
	context: IExecuteFunctions,
	itemIndex: number,
	body: IDataObject,
): string {
	const run = runOf(context);
	const origin = run.events[itemIndex]
		? ['event', context.getWorkflow().id, run.events[itemIndex]]
		: ['execution', run.executionId];
	const source = JSON.stringify([
		...origin,
		context.getNode().id,
		run.runIndex,
		run.placeAmongItsEvent[itemIndex] ?? itemIndex,
		body,
	]);
	return `n8n-${createHash('sha256').update(source).digest('base64url')}`;
}

/** The item fields that hold the event id, by the node type (its name after the package) of the trigger. */
const EVENT_ID_FIELD: Record<string, string> = {
	trainingLabTrigger: 'webhook_id',
	trainingLabActivityTrigger: 'id',
};

/** Custom data key holding the execution whose creates this execution carries on. */
const RUN_ID_KEY = 'traininglab_run';

interface RunOfNode {
	executionId: string;
	runIndex: number;
	/** The Training Lab event each input item descends from (undefined: none, or not one alone). */
	events: Array<string | undefined>;
	/**
	 * Each input item's place among the items of the same event (or, without one, of the run); empty
	 * where no item descends from an event, and the item's index serves.
	 */
	placeAmongItsEvent: number[];
}

const runs = new WeakMap<IExecuteFunctions, RunOfNode>();

/**
 * What the keys of one run of the node share, worked out once per run.
 *
 * The execution: n8n's retry of a failed execution starts a new execution (another id) from the
 * failed one's data, custom data included; the first execution's id is kept there, so a retry's
 * creates carry the first one's keys. A tool call without an execution (the MCP Server Trigger in
 * one n8n process) gets fresh run data from n8n, so a random id there makes each call its own intent.
 */
function runOf(context: IExecuteFunctions): RunOfNode {
	let run = runs.get(context);
	if (!run) {
		const proxy = context.getWorkflowDataProxy(0);
		const customData = (proxy.$execution as { customData?: IWorkflowExecutionCustomData })
			.customData;
		let executionId = customData?.get(RUN_ID_KEY);
		if (!executionId) {
			executionId = context.getExecutionId() ?? randomUUID();
			customData?.set(RUN_ID_KEY, executionId);
		}
		const events = triggeringEvents(context);
		const seen = new Map<string | undefined, number>();
		const placeAmongItsEvent = events.map((event) => {
			const place = seen.get(event) ?? 0;
			seen.set(event, place + 1);
			return place;
		});
		const runIndex = (proxy.$runIndex as number) - recoveredRunsBefore(context, proxy);
		run = { executionId, runIndex, events, placeAmongItsEvent };
		runs.set(context, run);
	}
	return run;
}

type DataProxy = ReturnType<IExecuteFunctions['getWorkflowDataProxy']>;

/**
 * How many earlier runs of this node n8n made up when it recovered a crashed execution: it marks
 * every node its event log says had run with one artificial item, and a retry by hand runs the node
 * again after them. Without leaving them out, the retry's run would count as another run (a loop)
 * and create again.
 */
function recoveredRunsBefore(context: IExecuteFunctions, proxy: DataProxy): number {
	let recovered = 0;
	const self = proxy.$(context.getNode().name) as {
		all(branch: number, runIndex: number): Array<{ json?: IDataObject }>;
	};
	for (let earlier = 0; earlier < (proxy.$runIndex as number); earlier++) {
		try {
			const items = self.all(0, earlier);
			if (items.length > 0 && items.every((item) => item.json?.isArtificialRecoveredEventItem))
				recovered++;
		} catch {
			// A run without output (an error) is a real run.
		}
	}
	return recovered;
}

/**
 * For each input item, the Training Lab event it descends from, as `<trigger node>/<event id>`:
 * followed back through n8n's paired-item lineage to an item of a Training Lab trigger upstream.
 * An item with no such lineage (another trigger started the execution, a node that drops the
 * lineage, an item merged from several events) has none.
 */
function triggeringEvents(context: IExecuteFunctions): Array<string | undefined> {
	const triggers = context.getParentNodes(context.getNode().name).flatMap((parent) => {
		const field = parent.disabled ? undefined : eventIdFieldOf(parent.type);
		return field ? [{ name: parent.name, field }] : [];
	});
	if (triggers.length === 0) return [];
	return context.getInputData().map((_, itemIndex) => {
		for (const trigger of triggers) {
			const eventId = pairedEventId(context, itemIndex, trigger.name, trigger.field);
			if (eventId !== undefined) return `${trigger.name}/${eventId}`;
		}
		return undefined;
	});
}

function eventIdFieldOf(nodeType: string): string | undefined {
	const name = nodeType.slice(nodeType.lastIndexOf('.') + 1);
	return Object.hasOwn(EVENT_ID_FIELD, name) ? EVENT_ID_FIELD[name] : undefined;
}

/** The id of the trigger's event that item `itemIndex` descends from, as `$('Trigger').item` finds it. */
function pairedEventId(
	context: IExecuteFunctions,
	itemIndex: number,
	triggerName: string,
	field: string,
): string | undefined {
	try {
		const item = (
			context.getWorkflowDataProxy(itemIndex).$(triggerName) as { item?: { json?: IDataObject } }
		).item;
		const eventId = item?.json?.[field];
		return typeof eventId === 'string' && eventId !== '' ? eventId : undefined;
	} catch {
		// No lineage to this trigger (it did not run, or the item came another way): no event.
		return undefined;
	}
}
