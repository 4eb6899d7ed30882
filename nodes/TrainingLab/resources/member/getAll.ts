import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { returnAllOrLimit } from '../../shared/descriptions';
import { getList } from '../../shared/list';
import type { ExecutionContext, OperationOption } from '../../shared/types';
import { apiPath } from '../../../shared/transport';

export const option: OperationOption = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many members',
	description: 'List the members of the organization',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	"Lists the members of the organization: user_id, email, name and role (admin or trainer). A member's user_id is what updating a role or removing a member needs.";

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['member'], operation: ['getAll'] } },
	returnAllOrLimit(),
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject[]> {
	return await getList.call(
		this,
		itemIndex,
		apiPath`/orgs/${await context.orgId(itemIndex)}/members`,
	);
}
