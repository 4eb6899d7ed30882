import { h, replaceChildren } from '../dom.ts';
import type { ViewContext } from './context.ts';
import { act, confirmAction } from '../ui.ts';

export async function organizationPage(context: ViewContext): Promise<HTMLElement> {
	const { api } = context;
	const me = await api.get('/me');
	const feedback = h('div', { class: 'feedback' });
	const close = h('button', { type: 'button', class: 'danger' }, 'Close the organization…');
	close.addEventListener('click', async () => {
		const sure = await confirmAction({
			title: `Close ${me.org.name}?`,
			body: [
				h(
					'p',
					{},
					'Every API key of the organization stops working at once, this one included: you are signed out. ',
					'Webhook endpoints still receive the org.closed event. This cannot be undone.',
				),
			],
			confirmLabel: 'Close the organization',
			typed: me.org.slug,
		});
		if (!sure) return close.focus();
		await act(close, feedback, async () => {
			await api.post('/orgs/{orgId}/close', {}, { orgId: me.org.id });
			// The key no longer works; the next request signs out. Make it now, with the reason.
			replaceChildren(feedback, h('p', { class: 'done' }, 'The organization is closed.'));
			await api.get('/me');
		});
	});
	return h(
		'div',
		{},
		h('h1', {}, 'Organization'),
		h(
			'dl',
			{ class: 'facts' },
			h('dt', {}, 'Name'),
			h('dd', {}, me.org.name),
			h('dt', {}, 'Slug'),
			h('dd', {}, h('code', {}, me.org.slug)),
			h('dt', {}, 'Id'),
			h('dd', {}, h('code', {}, me.org.id)),
		),
		h(
			'section',
			{ class: 'card danger-zone', 'aria-labelledby': 'close-title' },
			h('h2', { id: 'close-title' }, 'Close the organization'),
			h('p', {}, 'Closing ends the organization for good. You will be asked to type its slug.'),
			h('p', {}, close),
			feedback,
		),
	);
}
