import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { labLocator, returnAllOrLimit } from '../../shared/descriptions';
import { getList, locatorValue } from '../../shared/list';
import type { OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many lab versions',
	description: 'List the versions of a lab',
};

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['labVersion'], operation: ['getAll'] } },
	[labLocator, ...returnAllOrLimit()],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const labId = locatorValue.call(this, 'lab', itemIndex);
	return await getList.call(this, itemIndex, `/labs/${encodeURIComponent(labId)}/versions`);
}
