import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { apiRequest } from '../../../shared/transport';
import { webhookIdField, webhookPath } from './webhookPath';
import type { ExecutionContext, OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Get',
	value: 'get',
	action: 'Get a webhook endpoint',
	description: 'Get one endpoint by ID, without its secret',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	'Gets one webhook endpoint by its id (a UUID from listing webhook endpoints): url, event_types, enabled, description; never its secret. Needs an admin API key.';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['get'] } },
	[webhookIdField],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	return (
		await apiRequest.call(this, 'GET', await webhookPath.call(this, itemIndex, context), {
			itemIndex,
		})
	).body;
}
