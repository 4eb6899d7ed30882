import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { labLocator } from '../../shared/descriptions';
import { locatorValue } from '../../shared/list';
import { additionalFields, postOnce } from '../../shared/create';
import type { OperationOption } from '../../shared/types';
import { apiPath } from '../../../shared/transport';

export const option: OperationOption = {
	name: 'Create',
	value: 'create',
	action: 'Create a lab version',
	description: 'Create a draft version of a lab',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	"Creates the next draft version of a lab, given the lab's id (a UUID from listing labs); the version is numbered one above the lab's latest. A draft must be published before sessions can use it. Needs an admin API key.";

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['labVersion'], operation: ['create'] } },
	[
		{
			...labLocator,
			description: 'The lab to add a draft version to; it is numbered one above the latest',
		},
		additionalFields(),
	],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const labId = locatorValue.call(this, 'lab', itemIndex);
	return await postOnce.call(this, itemIndex, apiPath`/labs/${labId}/versions`);
}
