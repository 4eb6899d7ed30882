import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { draftLabVersionLocator, labLocator } from '../../shared/descriptions';
import { locatorValue } from '../../shared/list';
import { apiPath, apiRequest } from '../../../shared/transport';
import type { OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Publish',
	value: 'publish',
	action: 'Publish a lab version',
	description: 'Publish a draft version so sessions can use it',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	"Publishes a draft version of a lab, given the lab's id and the version's id (UUIDs from listing labs and their versions), so that sessions can use it. A published version cannot go back to draft. Needs an admin API key.";

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['labVersion'], operation: ['publish'] } },
	[labLocator, draftLabVersionLocator],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const labId = locatorValue.call(this, 'lab', itemIndex);
	const versionId = locatorValue.call(this, 'labVersion', itemIndex);
	return (
		await apiRequest.call(this, 'POST', apiPath`/labs/${labId}/versions/${versionId}/publish`, {
			itemIndex,
		})
	).body;
}
