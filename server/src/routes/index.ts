import type { AnyRoute } from '../http/route.ts';
import { apiKeyRoutes } from './api-keys.ts';
import { eventConsumerRoutes } from './event-consumers.ts';
import { eventTypeRoutes } from './event-types.ts';
import { identityRoutes } from './identity.ts';
import { labRoutes } from './labs.ts';
import { memberRoutes } from './members.ts';
import { orgRoutes } from './orgs.ts';
import { sessionRoutes } from './sessions.ts';
import { webhookRoutes } from './webhooks.ts';

/** Every endpoint of /api/v1 (besides the OpenAPI document itself). */
export const ROUTES: readonly AnyRoute[] = [
	...identityRoutes,
	...memberRoutes,
	...orgRoutes,
	...eventConsumerRoutes,
	...eventTypeRoutes,
	...sessionRoutes,
	...labRoutes,
	...apiKeyRoutes,
	...webhookRoutes,
];
