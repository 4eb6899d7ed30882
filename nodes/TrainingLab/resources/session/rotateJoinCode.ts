import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { sessionLocator } from '../../shared/descriptions';
import { apiRequest } from '../../../shared/transport';
import { sessionPath } from './sessionPath';
import type { OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Rotate Join Code',
	value: 'rotateJoinCode',
	action: 'Rotate the join code of a session',
	description: 'Replace the join code of a session',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	"Gives a session a new 8-character join code, given the session's id (a UUID from listing sessions), and returns it. The previous code stops working at once.";

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['session'], operation: ['rotateJoinCode'] } },
	[
		{
			...sessionLocator,
			description: 'The session whose join code to replace. The old code stops working at once.',
		},
	],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return (
		await apiRequest.call(this, 'POST', sessionPath.call(this, itemIndex, '/join-code'), {
			itemIndex,
		})
	).body;
}
