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

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['session'], operation: ['end'] } },
	[{ ...sessionLocator, description: 'A running session to end' }],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return (
		await apiRequest.call(this, 'POST', sessionPath.call(this, itemIndex, '/end'), { itemIndex })
	).body;
}
