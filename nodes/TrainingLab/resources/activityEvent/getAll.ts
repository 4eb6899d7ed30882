import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { returnAllOrLimit } from '../../shared/descriptions';
import { getList } from '../../shared/list';
import type { ExecutionContext, OperationOption } from '../../shared/types';
import type { Json } from '../../../shared/api';
import { apiPath } from '../../../shared/transport';
import { filterQuery, listFilters } from '../../shared/filters';

const listEvents = getList<Json<'ActivityEvent'>>;

export const option: OperationOption = {
	name: 'Get Many',
	value: 'getAll',
	action: 'Get many activity events',
	description: "List the organization's activity log, newest first, of some types or times only",
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	"Lists the organization's activity log, newest first: each event has an id, a type (such as member.removed or session.created), occurred_at, the actor's e-mail and data. Can list only some event types, and only events at or after a time (since) and before another (until), ISO 8601 date-times. Returns at most the configured number of events. Needs an admin API key.";

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['activityEvent'], operation: ['getAll'] } },
	[
		...returnAllOrLimit(),
		listFilters('events'),
		{
			displayName: 'Simplify',
			name: 'simplify',
			type: 'boolean',
			default: false,
			description:
				'Whether to return each event as one flat object, with the fields of its data next to its type and time',
		},
	],
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject[]> {
	const events = await listEvents.call(
		this,
		itemIndex,
		apiPath`/orgs/${await context.orgId(itemIndex)}/events`,
		filterQuery.call(this, itemIndex),
	);
	if (!this.getNodeParameter('simplify', itemIndex)) return events;
	return events.map(({ data, ...event }) => ({ ...data, ...event }));
}
