import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { labLocator, returnAllOrLimit } from '../../shared/descriptions';
import { getList, locatorValue } from '../../shared/list';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['labVersion'], operation: ['getAll'] } },
	[labLocator, ...returnAllOrLimit()],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const labId = locatorValue.call(this, 'lab', itemIndex);
	return await getList.call(this, itemIndex, `/labs/${encodeURIComponent(labId)}/versions`);
}
