import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { sessionLocator } from '../../shared/descriptions';
import { locatorValue } from '../../shared/list';
import { apiRequest } from '../../../shared/transport';
import { sessionPath } from './sessionPath';
import type { OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Delete',
	value: 'delete',
	action: 'Delete a session',
	description: 'Delete a session that is not running',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	'Deletes a session by its id (a UUID from listing sessions). A running session cannot be deleted: end it first. Cannot be undone.';

export const toolWarning =
	'A model that calls this tool deletes sessions, which cannot be undone. Consider a human review step for this tool.';

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['session'], operation: ['delete'] } },
	[
		{
			...sessionLocator,
			description: 'The session to delete. A running session must be ended first.',
		},
	],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	await apiRequest.call(this, 'DELETE', sessionPath.call(this, itemIndex), { itemIndex });
	return { deleted: true, id: locatorValue.call(this, 'session', itemIndex) };
}
