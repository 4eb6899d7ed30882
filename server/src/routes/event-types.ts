import { defineRoute } from '../http/route.ts';
import { EventTypeCatalogue } from '../schemas/events.ts';
import { eventTypeCatalogue } from '../services/event-types.ts';

export const eventTypeRoutes = [
	defineRoute({
		method: 'get',
		path: '/event-types',
		operationId: 'listEventTypes',
		tag: 'Activity log',
		summary: 'List every event type, with what causes it and the schema of its data',
		description:
			'The catalogue of the events the activity log records and webhooks deliver: each type, what it means, ' +
			'what causes it, the JSON Schema of its `data` and an example. The same schemas are in this document ' +
			'(`webhooks`, and the `…Event` components).',
		access: 'member',
		success: { status: 200, description: 'Every event type.', schema: EventTypeCatalogue },
		handle: () => eventTypeCatalogue(),
	}),
];
