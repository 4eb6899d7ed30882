import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { sessionLocator } from '../../shared/descriptions';
import { apiRequest } from '../../../shared/transport';
import { sessionPath } from './sessionPath';
import type { OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'End',
	value: 'end',
	action: 'End a session',
	description: 'End a running session',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	'Ends a running session by its id (a UUID from listing sessions): running → ended. An ended session cannot be started again, and nobody can join it any more.';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['session'], operation: ['end'] } },
	[{ ...sessionLocator, description: 'A running session to end' }],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return (
		await apiRequest.call(this, 'POST', sessionPath.call(this, itemIndex, '/end'), { itemIndex })
	).body;
}
