import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { labLocator } from '../../shared/descriptions';
import { locatorValue } from '../../shared/list';
import { apiRequest, idempotencyKeyFor } from '../../../shared/transport';
import type { OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Create',
	value: 'create',
	action: 'Create a lab version',
	description: 'Create a draft version of a lab',
};

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['labVersion'], operation: ['create'] } },
	[
		{
			...labLocator,
			description: 'The lab to add a draft version to; it is numbered one above the latest',
		},
	],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const labId = locatorValue.call(this, 'lab', itemIndex);
	const idempotencyKey = idempotencyKeyFor(this, itemIndex, { labId });
	return (
		await apiRequest.call(this, 'POST', `/labs/${encodeURIComponent(labId)}/versions`, {
			idempotencyKey,
			itemIndex,
		})
	).body;
}
