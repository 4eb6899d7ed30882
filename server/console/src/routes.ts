import type { ViewContext } from './views/context.ts';
import { activityPage } from './views/activity.ts';
import { apiKeysPage } from './views/api-keys.ts';
import { endpointPage } from './views/endpoint/page.ts';
import { labPage, labsPage } from './views/labs.ts';
import { membersPage } from './views/members.ts';
import { organizationPage } from './views/organization.ts';
import { overviewPage } from './views/overview.ts';
import { sessionPage, sessionsPage } from './views/sessions.ts';
import { webhooksPage } from './views/webhooks.ts';

export interface Route {
	path: string;
	title: string;
	/** The navigation entry this page belongs to. */
	section: string;
	nav: boolean;
	view: (context: ViewContext) => Promise<HTMLElement>;
}

export const ROUTES: Route[] = [
	{ path: '/', title: 'Overview', section: 'overview', nav: true, view: overviewPage },
	{ path: '/members', title: 'Members', section: 'members', nav: true, view: membersPage },
	{ path: '/sessions', title: 'Sessions', section: 'sessions', nav: true, view: sessionsPage },
	{ path: '/sessions/:id', title: 'Session', section: 'sessions', nav: false, view: sessionPage },
	{ path: '/labs', title: 'Labs', section: 'labs', nav: true, view: labsPage },
	{ path: '/labs/:id', title: 'Lab', section: 'labs', nav: false, view: labPage },
	{ path: '/api-keys', title: 'API keys', section: 'api-keys', nav: true, view: apiKeysPage },
	{ path: '/webhooks', title: 'Webhooks', section: 'webhooks', nav: true, view: webhooksPage },
	{
		path: '/webhooks/:id',
		title: 'Deliveries',
		section: 'webhooks',
		nav: false,
		view: endpointPage,
	},
	{ path: '/activity', title: 'Activity', section: 'activity', nav: true, view: activityPage },
	{
		path: '/organization',
		title: 'Organization',
		section: 'organization',
		nav: true,
		view: organizationPage,
	},
];

export function match(path: string): { route: Route; params: Record<string, string> } | null {
	const parts = path.split('/').filter(Boolean);
	for (const route of ROUTES) {
		const pattern = route.path.split('/').filter(Boolean);
		if (pattern.length !== parts.length) continue;
		const params: Record<string, string> = {};
		const fits = pattern.every((segment, index) => {
			if (segment.startsWith(':')) {
				params[segment.slice(1)] = decodeURIComponent(parts[index]);
				return true;
			}
			return segment === parts[index];
		});
		if (fits) return { route, params };
	}
	return null;
}
