import type { IHookFunctions, IPollFunctions, IWebhookFunctions } from 'n8n-workflow';

/**
 * A key of this trigger node in this workflow, and of what it keeps track of (`parts`): the same in
 * every run of the node, another for the same node in a copy of the workflow.
 */
export function runKey(
	context: IHookFunctions | IPollFunctions | IWebhookFunctions,
	...parts: string[]
): string {
	return [context.getWorkflow().id, context.getNode().id, ...parts].join('\u0000');
}
