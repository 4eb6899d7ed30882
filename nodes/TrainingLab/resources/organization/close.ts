import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { apiRequest } from '../../../shared/transport';
import type { ExecutionContext, OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Close',
	value: 'close',
	action: 'Close the organization',
	description: 'Close the organization of the API key for good',
};

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['organization'], operation: ['close'] } },
	[
		{
			displayName:
				'Closing is final: afterwards every API key of the organization, including this credential, stops working',
			name: 'closeNotice',
			type: 'notice',
			default: '',
		},
	],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	return (
		await apiRequest.call(this, 'POST', `/orgs/${await context.orgId(itemIndex)}/close`, {
			itemIndex,
		})
	).body;
}
