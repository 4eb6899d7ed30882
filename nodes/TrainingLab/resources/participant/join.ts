import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { personFields } from '../../shared/descriptions';
import { additionalFields, postOnce } from '../../shared/create';
import type { OperationOption } from '../../shared/types';
import type { Schemas } from '../../../shared/api';

export const option: OperationOption = {
	name: 'Join',
	value: 'join',
	action: 'Join a session with its join code',
	description: 'Add a participant to the session the join code belongs to',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	"Adds a participant (e-mail and name) to a session with the session's 8-character join code. Fails if the code is unknown or was rotated, the session has ended or is full, or the e-mail already joined.";

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['participant'], operation: ['join'] } },
	[
		{
			displayName: 'Join Code',
			name: 'joinCode',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. K7QX2MPA',
			description: 'The 8-character join code of the session',
		},
		...personFields,
		additionalFields(),
	],
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const body: Schemas['JoinRequest'] = {
		join_code: this.getNodeParameter('joinCode', itemIndex) as string,
		email: this.getNodeParameter('email', itemIndex) as string,
		name: this.getNodeParameter('name', itemIndex) as string,
	};
	return await postOnce.call(this, itemIndex, '/join', body);
}
