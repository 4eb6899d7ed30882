import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { choiceField, choiceValue } from '../../shared/choices';
import { tierOptions } from '../../shared/descriptions';
import { additionalFields, postOnce } from '../../shared/create';
import type { OperationOption } from '../../shared/types';
import type { Schemas } from '../../../shared/api';

export const option: OperationOption = {
	name: 'Create',
	value: 'create',
	action: 'Create a lab',
	description: 'Create a lab',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	'Creates a lab with a name unique in the organization and a tier: container, vm or cluster. A new lab has no version: create and publish a version before sessions can use it. Needs an admin API key.';

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
		...choiceField(
			{
				displayName: 'Tier',
				name: 'tier',
				type: 'options',
				options: tierOptions,
				default: 'container',
				description: 'The kind of environment the lab runs in',
			},
			{ key: 'tier', description: 'The kind of environment the lab runs in.' },
		),
		additionalFields(),
	],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const body: Schemas['LabCreate'] = {
		name: this.getNodeParameter('name', itemIndex) as string,
		tier: choiceValue.call(this, 'tier', itemIndex) as Schemas['LabCreate']['tier'],
	};
	return await postOnce.call(this, itemIndex, '/labs', body);
}
