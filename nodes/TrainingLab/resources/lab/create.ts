import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { apiRequest, idempotencyKeyFor } from '../../../shared/transport';
import type { OperationOption } from '../../shared/types';

export const option: OperationOption = {
	name: 'Create',
	value: 'create',
	action: 'Create a lab',
	description: 'Create a lab',
};

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['lab'], operation: ['create'] } },
	[
		{
			displayName: 'Name',
			name: 'name',
			type: 'string',
			default: '',
			required: true,
			description: 'Unique within the organization',
		},
		{
			displayName: 'Tier',
			name: 'tier',
			type: 'options',
			options: [
				{ name: 'Cluster', value: 'cluster' },
				{ name: 'Container', value: 'container' },
				{ name: 'VM', value: 'vm' },
			],
			default: 'container',
			description: 'The kind of environment the lab runs in',
		},
	],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const body = {
		name: this.getNodeParameter('name', itemIndex) as string,
		tier: this.getNodeParameter('tier', itemIndex) as string,
	};
	const idempotencyKey = idempotencyKeyFor(this, itemIndex, body);
	return (await apiRequest.call(this, 'POST', '/labs', { body, idempotencyKey, itemIndex })).body;
}
