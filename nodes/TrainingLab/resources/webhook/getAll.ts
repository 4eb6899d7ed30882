import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { returnAllOrLimit } from '../../shared/descriptions';
import { getList } from '../../shared/list';
import type { ExecutionContext } from '../../shared/types';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['getAll'] } },
	returnAllOrLimit(),
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject[]> {
	return await getList.call(this, itemIndex, `/orgs/${await context.orgId()}/webhooks`);
}
