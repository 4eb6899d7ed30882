import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { returnAllOrLimit } from '../../shared/descriptions';
import { getList } from '../../shared/list';
import type { OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many labs',
	description: 'List the labs of the organization',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	"Lists the organization's labs (id, name, tier, created_at). A lab's id is what listing or creating its versions needs.";

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['lab'], operation: ['getAll'] } },
	returnAllOrLimit(),
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	return await getList.call(this, itemIndex, '/labs');
}
