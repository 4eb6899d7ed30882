import { defineListRoute, defineRoute } from '../http/route.ts';
import { ActivityEvent, EventListQuery } from '../schemas/events.ts';
import { ClosedOrg, OrgParams } from '../schemas/orgs.ts';

export const orgRoutes = [
	defineListRoute({
		path: '/orgs/{orgId}/events',
		operationId: 'listEvents',
		tag: 'Activity log',
		summary: 'List activity-log events, newest first',
		description:
			'Filter by `types`, `since` and `until`; the `Link` of the next page keeps the filters.',
		access: 'admin',
		params: OrgParams,
		query: EventListQuery,
		success: { description: 'A page of events.', schema: ActivityEvent },
		handle: ({ services, caller, page, query: { types, since, until } }) =>
			services.events.list(caller.org.id, page, { types, since, until }),
	}),
	defineRoute({
		method: 'post',
		path: '/orgs/{orgId}/close',
		operationId: 'closeOrganization',
		tag: 'Organization',
		summary: 'Close the organization',
		description: 'Emits `org.closed`; from then on every key of the organization gets 401.',
		access: 'admin',
		params: OrgParams,
		success: { status: 200, description: 'The closed organization.', schema: ClosedOrg },
		handle: ({ services, actor }) => services.orgs.close(actor),
	}),
];
