import { all } from '../api.ts';
import { h } from '../dom.ts';
import { time } from '../format.ts';
import type { ViewContext } from './context.ts';
import type { LabCreate, LabVersion } from '../types.ts';
import { act, announce, badge, field, formCard, link, listTable, row } from '../ui.ts';

const TIERS = ['container', 'vm', 'cluster'];

export async function labsPage(context: ViewContext): Promise<HTMLElement> {
	const { api } = context;
	const list = listTable(
		context,
		() => all(api, '/labs'),
		'Labs',
		['Name', 'Tier'],
		(lab) => row(link(`/labs/${encodeURIComponent(lab.id)}`, lab.name), lab.tier),
	);

	const form = formCard({
		title: 'Create a lab',
		submit: 'Create lab',
		fields: [
			field('Name', h('input', { name: 'name', required: true, maxlength: 200 })),
			field(
				'Tier',
				h('select', { name: 'tier' }, ...TIERS.map((tier) => h('option', { value: tier }, tier))),
			),
		],
		send: async (values, idempotencyKey) => {
			const lab = await api.post('/labs', {
				body: {
					name: String(values.get('name')),
					tier: String(values.get('tier')) as LabCreate['tier'],
				},
				idempotencyKey,
			});
			announce(`Lab “${lab.name}” was created.`);
			await list.refresh();
		},
	});

	await list.refresh();
	return h('div', {}, h('h1', {}, 'Labs'), list.element, form);
}

export async function labPage(context: ViewContext): Promise<HTMLElement> {
	const { api } = context;
	const labs = await all(api, '/labs');
	const lab = labs.find((candidate) => candidate.id === context.params.id);
	const labId = context.params.id;
	const feedback = h('div', { class: 'feedback' });
	const name = lab?.name ?? 'Lab';
	context.setTitle(`${name} · Labs`);
	const list = listTable(
		context,
		() => all(api, '/labs/{labId}/versions', { labId }),
		'Versions',
		['Version', 'Status', 'Published', 'Actions'],
		versionRow,
	);

	function versionRow(version: LabVersion): HTMLTableRowElement {
		const publish =
			version.status === 'draft'
				? h(
						'button',
						{ type: 'button', 'aria-label': `Publish version ${version.version}` },
						'Publish',
					)
				: null;
		publish?.addEventListener('click', () =>
			act(publish, feedback, async () => {
				await api.post(
					'/labs/{labId}/versions/{versionId}/publish',
					{},
					{ labId, versionId: version.id },
				);
				announce(`Version ${version.version} is published.`);
				await list.refresh();
			}),
		);
		return row(
			`Version ${version.version}`,
			badge(version.status, version.status === 'published' ? 'good' : 'wait'),
			time(version.published_at),
			publish,
		);
	}

	const create = h('button', { type: 'button' }, 'Create a draft version');
	create.addEventListener('click', () =>
		act(create, feedback, async () => {
			const version = await api.post('/labs/{labId}/versions', {}, { labId });
			announce(`Draft version ${version.version} was created.`);
			await list.refresh();
		}),
	);

	await list.refresh();
	return h(
		'div',
		{},
		h('p', { class: 'breadcrumb' }, link('/labs', 'Labs')),
		h('h1', {}, name),
		lab ? h('p', {}, 'Tier: ', lab.tier) : null,
		list.element,
		h('p', { class: 'actions' }, create),
		feedback,
	);
}
