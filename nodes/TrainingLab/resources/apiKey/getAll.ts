import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { returnAllOrLimit } from '../../shared/descriptions';
import { getList } from '../../shared/list';
import type { ExecutionContext, OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many API keys',
	description: 'List the API keys of the organization',
};

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['apiKey'], operation: ['getAll'] } },
	returnAllOrLimit(),
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject[]> {
	return await getList.call(this, itemIndex, `/orgs/${await context.orgId(itemIndex)}/api-keys`);
}
