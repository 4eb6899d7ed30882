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

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['session'], operation: ['start'] } },
	[{ ...sessionLocator, description: 'A scheduled session to start' }],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return (
		await apiRequest.call(this, 'POST', sessionPath.call(this, itemIndex, '/start'), { itemIndex })
	).body;
}
