import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { apiPath, apiRequest } from '../../../shared/transport';
import type { ExecutionContext, OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Close',
	value: 'close',
	action: 'Close the organization',
	description: 'Close the organization of the API key for good',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	"Closes the credential's organization for good: every API key of the organization, this one included, stops working at once and nothing more can be done through it. Cannot be undone. Call it only when a person has explicitly asked to close the organization. Needs an admin API key.";

export const toolWarning =
	"A model that calls this tool closes the organization for good: every API key stops working. Attach it only where a person approves each call (for example n8n's human review for tools).";

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['organization'], operation: ['close'] } },
	[
		{
			displayName:
				'Closing is final: afterwards every API key of the organization, including this credential, stops working',
			name: 'closeNotice',
			type: 'notice',
			default: '',
		},
	],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	return (
		await apiRequest.call(this, 'POST', apiPath`/orgs/${await context.orgId(itemIndex)}/close`, {
			itemIndex,
		})
	).body;
}
