import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { labLocator, returnAllOrLimit } from '../../shared/descriptions';
import { getList, locatorValue } from '../../shared/list';
import type { OperationOption } from '../../shared/types';
import { apiPath } from '../../../shared/transport';

export const option: OperationOption = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many lab versions',
	description: 'List the versions of a lab',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	"Lists the versions of a lab, given the lab's id (a UUID from listing labs): id, version number, status (draft or published), published_at. A session needs the id of a published version.";

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['labVersion'], operation: ['getAll'] } },
	[labLocator, ...returnAllOrLimit()],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const labId = locatorValue.call(this, 'lab', itemIndex);
	return await getList.call(this, itemIndex, apiPath`/labs/${labId}/versions`);
}
