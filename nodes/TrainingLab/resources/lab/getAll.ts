import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { returnAllOrLimit } from '../../shared/descriptions';
import { getList } from '../../shared/list';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['lab'], operation: ['getAll'] } },
	returnAllOrLimit(),
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	return await getList.call(this, itemIndex, '/labs');
}
