import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { returnAllOrLimit } from '../../shared/descriptions';
import { getList } from '../../shared/list';
import type { ExecutionContext, OperationOption } from '../../shared/types';
import { apiPath } from '../../../shared/transport';

export const option: OperationOption = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many webhook endpoints',
	description: 'List the webhook endpoints',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	"Lists the organization's webhook endpoints (id, url, event_types, enabled, description), without secrets. Needs an admin API key.";

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['getAll'] } },
	returnAllOrLimit(),
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject[]> {
	return await getList.call(
		this,
		itemIndex,
		apiPath`/orgs/${await context.orgId(itemIndex)}/webhooks`,
	);
}
