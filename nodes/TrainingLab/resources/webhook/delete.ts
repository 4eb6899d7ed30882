import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { apiRequest } from '../../../shared/transport';
import { webhookIdField, webhookPath } from './webhookPath';
import type { ExecutionContext, OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Delete',
	value: 'delete',
	action: 'Delete a webhook endpoint',
	description: 'Delete a webhook endpoint',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	'Deletes a webhook endpoint by its id (a UUID from listing webhook endpoints); deliveries not yet sent to it are dropped. Cannot be undone. Needs an admin API key.';

export const toolWarning =
	'A model that calls this tool deletes webhook endpoints, which cannot be undone. Consider a human review step for this tool.';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['delete'] } },
	[webhookIdField],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	await apiRequest.call(this, 'DELETE', await webhookPath.call(this, itemIndex, context), {
		itemIndex,
	});
	return { deleted: true, id: this.getNodeParameter('webhookId', itemIndex) as string };
}
