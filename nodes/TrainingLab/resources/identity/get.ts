import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { apiRequest } from '../../../shared/transport';
import type { OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Get',
	value: 'get',
	action: 'Get the identity of the API key',
	description: 'Get the user, organization and role of the API key',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	"Returns who the API key acts as: the user, the organization (its id) and the key's role (admin or trainer). Takes no input; call it first to learn what the other operations are allowed to do.";

export const description: INodeProperties[] = [];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return (await apiRequest.call(this, 'GET', '/me', { itemIndex })).body;
}
