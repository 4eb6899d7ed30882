import { h } from '../dom.ts';
import { badge, link } from '../ui.ts';
import type { ViewContext } from './context.ts';

export async function overviewPage({ api }: ViewContext): Promise<HTMLElement> {
	// Read again rather than kept from sign-in: a role changed meanwhile shows here.
	const me = await api.get('/me');
	return h(
		'div',
		{},
		h('h1', {}, 'Overview'),
		h(
			'dl',
			{ class: 'facts' },
			h('dt', {}, 'Signed in as'),
			h('dd', {}, me.user.name, ' ', h('span', { class: 'muted' }, `<${me.user.email}>`)),
			h('dt', {}, 'Organization'),
			h('dd', {}, me.org.name, ' ', h('span', { class: 'muted' }, `(${me.org.slug})`)),
			h('dt', {}, 'Organization id'),
			h('dd', {}, h('code', {}, me.org.id)),
			h('dt', {}, 'Role of this key'),
			h('dd', {}, badge(me.role, me.role === 'admin' ? 'good' : 'plain')),
		),
		h(
			'p',
			{},
			me.role === 'admin'
				? 'An admin key may do everything this console offers.'
				: 'A trainer key reads members and labs and runs sessions. The API refuses anything else, and says so here.',
		),
		h(
			'ul',
			{ class: 'shortcuts' },
			h('li', {}, link('/sessions', 'Sessions'), ': create, start, end, share a join code'),
			h('li', {}, link('/members', 'Members'), ': add, change a role, remove'),
			h('li', {}, link('/webhooks', 'Webhooks'), ': endpoints and every delivery attempt'),
			h('li', {}, link('/activity', 'Activity'), ': the organization’s log, live'),
		),
	);
}
