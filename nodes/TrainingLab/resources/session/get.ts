import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { sessionLocator } from '../../shared/descriptions';
import { apiRequest } from '../../../shared/transport';
import { sessionPath } from './sessionPath';
import type { OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Get',
	value: 'get',
	action: 'Get a session',
	description: 'Get a session with its participant count',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	'Gets one session by its id (a UUID from listing sessions): title, state (scheduled, running or ended), capacity, starts_at, lab_version_id and the number of participants.';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['session'], operation: ['get'] } },
	[sessionLocator],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return (await apiRequest.call(this, 'GET', sessionPath.call(this, itemIndex), { itemIndex }))
		.body;
}
