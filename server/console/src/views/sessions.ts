import { all, type Page } from '../api.ts';
import { h, replaceChildren } from '../dom.ts';
import { time } from '../format.ts';
import type { ViewContext } from './context.ts';
import type { Session, SessionState } from '../types.ts';
import {
	act,
	announce,
	badge,
	confirmAction,
	field,
	formCard,
	link,
	row,
	secretOnce,
	table,
} from '../ui.ts';

const PAGE_SIZE = 25;
const STATE_TONE: Record<SessionState, 'good' | 'wait' | 'plain'> = {
	scheduled: 'wait',
	running: 'good',
	ended: 'plain',
};

export const stateBadge = (state: SessionState) => badge(state, STATE_TONE[state]);

export async function sessionsPage(context: ViewContext): Promise<HTMLElement> {
	const { api } = context;
	const list = h('div', {});
	/** Cursors of the pages before this one (null for the first), so Previous walks back. */
	const before: Array<string | null> = [];
	let current: string | null = null;

	async function draw(cursor: string | null): Promise<void> {
		const page: Page<Session> = await api.page('/sessions', {
			query: { limit: PAGE_SIZE },
			cursor,
		});
		if (!context.isCurrent()) return;
		current = cursor;
		const previous = h(
			'button',
			{ type: 'button', disabled: before.length === 0 },
			'Previous page',
		);
		previous.addEventListener('click', () => void draw(before.pop() ?? null));
		const next = h('button', { type: 'button', disabled: page.next === null }, 'Next page');
		next.addEventListener('click', () => {
			before.push(current);
			void draw(page.next);
		});
		replaceChildren(
			list,
			table(
				'Sessions',
				['Title', 'State', 'Capacity', 'Starts', 'Created'],
				page.items.map((session) =>
					row(
						link(`/sessions/${encodeURIComponent(session.id)}`, session.title),
						stateBadge(session.state),
						session.capacity,
						time(session.starts_at),
						time(session.created_at),
					),
				),
			),
			h(
				'nav',
				{ class: 'pager', 'aria-label': 'Pages of sessions' },
				previous,
				h('span', {}, `Page ${before.length + 1}`),
				next,
			),
		);
	}

	const createForm = await sessionForm(context, async () => {
		before.length = 0;
		await draw(null);
	});
	await draw(null);
	return h('div', {}, h('h1', {}, 'Sessions'), list, createForm);
}

/** Every published version of every lab, as options "Lab name — v2". */
async function publishedVersions(context: ViewContext) {
	const labs = await all(context.api, '/labs');
	const options: Array<{ id: string; label: string }> = [];
	for (const lab of labs) {
		const versions = await all(context.api, '/labs/{labId}/versions', { labId: lab.id });
		for (const version of versions.filter((v) => v.status === 'published').reverse())
			options.push({ id: version.id, label: `${lab.name} — version ${version.version}` });
	}
	return options;
}

async function sessionForm(context: ViewContext, created: () => Promise<void>) {
	const versions = await publishedVersions(context);
	return formCard({
		title: 'Create a session',
		submit: 'Create session',
		fields: [
			field('Title', h('input', { name: 'title', required: true, maxlength: 200 })),
			field(
				'Lab version',
				h(
					'select',
					{ name: 'lab_version_id', required: true },
					...versions.map((version) => h('option', { value: version.id }, version.label)),
				),
				versions.length === 0
					? 'No lab has a published version yet: publish one under Labs.'
					: undefined,
			),
			field(
				'Capacity',
				h('input', { name: 'capacity', type: 'number', min: 1, max: 1000, value: 20 }),
			),
			field(
				'Starts at (optional)',
				h('input', { name: 'starts_at', type: 'datetime-local' }),
				'Your local time.',
			),
		],
		send: async (values, idempotencyKey) => {
			const startsAt = String(values.get('starts_at') ?? '');
			const session = await context.api.post('/sessions', {
				body: {
					title: String(values.get('title')),
					lab_version_id: String(values.get('lab_version_id')),
					capacity: Number(values.get('capacity')),
					...(startsAt ? { starts_at: new Date(startsAt).toISOString() } : {}),
				},
				idempotencyKey,
			});
			announce(`Session “${session.title}” was created.`);
			await created();
			return h(
				'p',
				{ class: 'done' },
				'Created ',
				link(`/sessions/${encodeURIComponent(session.id)}`, session.title),
				'.',
			);
		},
	});
}

export async function sessionPage(context: ViewContext): Promise<HTMLElement> {
	const { api } = context;
	const path = '/sessions/{sessionId}';
	const ids = { sessionId: context.params.id };
	const details = h('div', {});
	const feedback = h('div', { class: 'feedback' });
	const secretSlot = h('div', {});
	const actions = h('div', { class: 'actions' });
	const heading = h('h1', {}, 'Session');

	async function draw(): Promise<void> {
		const session = await api.get(path, ids);
		if (!context.isCurrent()) return;
		heading.textContent = session.title;
		context.setTitle(`${session.title} · Sessions`);
		replaceChildren(
			details,
			h(
				'dl',
				{ class: 'facts' },
				h('dt', {}, 'State'),
				h('dd', {}, stateBadge(session.state)),
				h('dt', {}, 'Participants'),
				h('dd', {}, `${session.participants} of ${session.capacity}`),
				h('dt', {}, 'Starts'),
				h('dd', {}, time(session.starts_at)),
				h('dt', {}, 'Created'),
				h('dd', {}, time(session.created_at)),
				h('dt', {}, 'Lab version id'),
				h('dd', {}, h('code', {}, session.lab_version_id)),
				h('dt', {}, 'Session id'),
				h('dd', {}, h('code', {}, session.id)),
			),
		);
		replaceChildren(actions, ...buttonsFor(session));
	}

	function button(label: string, run: () => Promise<void>, danger = false): HTMLButtonElement {
		const element = h('button', { type: 'button', class: danger ? 'danger' : null }, label);
		element.addEventListener('click', () => act(element, feedback, run));
		return element;
	}

	function buttonsFor(session: Session): HTMLButtonElement[] {
		const transition = (action: 'start' | 'end', done: string) =>
			button(action === 'start' ? 'Start session' : 'End session', async () => {
				await api.post(`${path}/${action}`, {}, ids);
				announce(done);
				await draw();
			});
		const rotate = button('New join code', async () => {
			const { join_code } = await api.post(`${path}/join-code`, {}, ids);
			replaceChildren(
				secretSlot,
				secretOnce(
					'Join code',
					join_code,
					'Participants join with this code. The previous code stopped working; this one is not shown again.',
				),
			);
			announce('A new join code was made. The previous one stopped working.');
		});
		const remove = h('button', { type: 'button', class: 'danger' }, 'Delete session');
		remove.addEventListener('click', async () => {
			const sure = await confirmAction({
				title: `Delete “${session.title}”?`,
				body: [h('p', {}, 'The session and its participants are deleted.')],
				confirmLabel: 'Delete session',
			});
			if (!sure) return remove.focus();
			await act(remove, feedback, async () => {
				await api.delete(path, ids);
				announce(`Session “${session.title}” was deleted.`);
				location.hash = '#/sessions';
			});
		});
		return [
			session.state === 'scheduled' ? transition('start', 'The session is running.') : null,
			session.state === 'running' ? transition('end', 'The session has ended.') : null,
			session.state !== 'ended' ? rotate : null,
			remove,
		].filter((element): element is HTMLButtonElement => element !== null);
	}

	await draw();
	return h(
		'div',
		{},
		h('p', { class: 'breadcrumb' }, link('/sessions', 'Sessions')),
		heading,
		details,
		actions,
		feedback,
		secretSlot,
	);
}
