import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { apiRequest } from '../../../shared/transport';
import type { ExecutionContext } from '../../shared/types';
import { webhookIdField } from './delete';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['get'] } },
	[webhookIdField],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	const webhookId = this.getNodeParameter('webhookId', itemIndex) as string;
	return (
		await apiRequest.call(
			this,
			'GET',
			`/orgs/${await context.orgId()}/webhooks/${encodeURIComponent(webhookId)}`,
			{ itemIndex },
		)
	).body as IDataObject;
}
