import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { apiRequest } from '../../../shared/transport';
import { webhookIdField, webhookPath } from './webhookPath';
import type { ExecutionContext, OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Get Health',
	value: 'getHealth',
	action: 'Get the health of a webhook endpoint',
	description:
		'Get what waits to be delivered, and the success rate and answer time of the last hour and day',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	'Gets how a webhook endpoint is doing, given its id (a UUID from listing webhook endpoints): how many deliveries wait and the time of the oldest waiting event, and for the last hour (12 points of 5 minutes) and the last day (24 points of an hour) the attempts, how many were delivered, the success rate and the mean answer time. Use it to tell whether an endpoint, such as an n8n workflow, is receiving its events. Needs an admin API key.';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['getHealth'] } },
	[webhookIdField],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	const path = await webhookPath.call(this, itemIndex, context, '/health');
	return (await apiRequest.call(this, 'GET', path, { itemIndex })).body;
}
