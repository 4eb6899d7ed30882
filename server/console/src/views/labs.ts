import { all } from '../api.ts';
import { badge, h, link, replaceChildren, time } from '../dom.ts';
import type { ViewContext } from '../routes.ts';
import type { Lab, LabVersion } from '../types.ts';
import { act, announce, field, onSubmit, row, table } from '../ui.ts';

const TIERS = ['container', 'vm', 'cluster'];

export async function labsPage(context: ViewContext): Promise<HTMLElement> {
	const { api } = context;
	const list = h('div', {});

	async function draw(): Promise<void> {
		const labs = await all<Lab>(api, '/labs');
		if (!context.isCurrent()) return;
		replaceChildren(
			list,
			table(
				'Labs',
				['Name', 'Tier'],
				labs.map((lab) => row(link(`/labs/${encodeURIComponent(lab.id)}`, lab.name), lab.tier)),
			),
		);
	}

	const feedback = h('div', { class: 'feedback' });
	const form = h(
		'form',
		{ class: 'card', 'aria-labelledby': 'create-lab-title' },
		h('h2', { id: 'create-lab-title' }, 'Create a lab'),
		field('Name', h('input', { name: 'name', required: true, maxlength: 200 })),
		field(
			'Tier',
			h('select', { name: 'tier' }, ...TIERS.map((tier) => h('option', { value: tier }, tier))),
		),
		h('p', {}, h('button', { type: 'submit' }, 'Create lab')),
		feedback,
	);
	onSubmit(form, feedback, async (values, idempotencyKey) => {
		const lab = await api.post<Lab>(
			'/labs',
			{ name: values.get('name'), tier: values.get('tier') },
			idempotencyKey,
		);
		form.reset();
		announce(`Lab “${lab.name}” was created.`);
		await draw();
	});

	await draw();
	return h('div', {}, h('h1', {}, 'Labs'), list, form);
}

export async function labPage(context: ViewContext): Promise<HTMLElement> {
	const { api } = context;
	const labs = await all<Lab>(api, '/labs');
	const lab = labs.find((candidate) => candidate.id === context.params.id);
	const path = `/labs/${encodeURIComponent(context.params.id)}/versions`;
	const list = h('div', {});
	const feedback = h('div', { class: 'feedback' });
	const name = lab?.name ?? 'Lab';
	context.setTitle(`${name} · Labs`);

	async function draw(): Promise<void> {
		const versions = await all<LabVersion>(api, path);
		if (!context.isCurrent()) return;
		replaceChildren(
			list,
			table(
				'Versions',
				['Version', 'Status', 'Published', 'Actions'],
				versions.map((version) => {
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
							await api.post(`${path}/${encodeURIComponent(version.id)}/publish`);
							announce(`Version ${version.version} is published.`);
							await draw();
						}),
					);
					return row(
						`Version ${version.version}`,
						badge(version.status, version.status === 'published' ? 'good' : 'wait'),
						time(version.published_at),
						publish,
					);
				}),
			),
		);
	}

	const create = h('button', { type: 'button' }, 'Create a draft version');
	create.addEventListener('click', () =>
		act(create, feedback, async () => {
			const version = await api.post<LabVersion>(path);
			announce(`Draft version ${version.version} was created.`);
			await draw();
		}),
	);

	await draw();
	return h(
		'div',
		{},
		h('p', { class: 'breadcrumb' }, link('/labs', 'Labs')),
		h('h1', {}, name),
		lab ? h('p', {}, 'Tier: ', lab.tier) : null,
		list,
		h('p', { class: 'actions' }, create),
		feedback,
	);
}
