import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { returnAllOrLimit } from '../../shared/descriptions';
import { getList } from '../../shared/list';
import type { OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many sessions',
	description: 'List sessions',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	"Lists the organization's sessions (id, title, state, capacity, starts_at, lab_version_id). Returns at most the configured number of sessions.";

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['session'], operation: ['getAll'] } },
	returnAllOrLimit(),
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	return await getList.call(this, itemIndex, '/sessions');
}
