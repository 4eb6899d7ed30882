import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { sessionLocator } from '../../shared/descriptions';
import { apiRequest } from '../../../shared/transport';
import { sessionPath } from './sessionPath';
import type { OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Start',
	value: 'start',
	action: 'Start a session',
	description: 'Start a scheduled session',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	'Starts a scheduled session by its id (a UUID from listing sessions): scheduled → running.';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['session'], operation: ['start'] } },
	[{ ...sessionLocator, description: 'A scheduled session to start' }],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return (
		await apiRequest.call(this, 'POST', sessionPath.call(this, itemIndex, '/start'), { itemIndex })
	).body;
}
