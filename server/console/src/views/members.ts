import { h } from '../dom.ts';
import type { ViewContext } from './context.ts';
import { all } from '../api.ts';
import type { Member, Role } from '../types.ts';
import {
	act,
	announce,
	badge,
	confirmAction,
	field,
	formCard,
	listTable,
	roleField,
	row,
} from '../ui.ts';

export async function membersPage(context: ViewContext): Promise<HTMLElement> {
	const { api, me } = context;
	const orgId = me.org.id;
	const memberPath = '/orgs/{orgId}/members/{userId}';
	const feedback = h('div', { class: 'feedback' });
	const list = listTable(
		context,
		() => all(api, '/orgs/{orgId}/members', { orgId }),
		'Members',
		['Name', 'E-mail', 'Role', 'Actions'],
		memberRow,
	);

	function memberRow(member: Member): HTMLTableRowElement {
		const other: Role = member.role === 'admin' ? 'trainer' : 'admin';
		const roleButton = h(
			'button',
			{ type: 'button', 'aria-label': `Make ${other}: ${member.name}` },
			`Make ${other}`,
		);
		roleButton.addEventListener('click', () =>
			act(roleButton, feedback, async () => {
				await api.patch(memberPath, { role: other }, { orgId, userId: member.user_id });
				announce(`${member.name} is now ${other}.`);
				await list.refresh();
			}),
		);
		const removeButton = h(
			'button',
			{ type: 'button', class: 'danger', 'aria-label': `Remove ${member.name}` },
			'Remove',
		);
		removeButton.addEventListener('click', async () => {
			const sure = await confirmAction({
				title: `Remove ${member.name}?`,
				body: [
					h(
						'p',
						{},
						`${member.name} (${member.email}) leaves ${me.org.name}. Every API key of theirs stops working at once.`,
					),
				],
				confirmLabel: `Remove ${member.name}`,
			});
			if (!sure) return removeButton.focus();
			await act(removeButton, feedback, async () => {
				await api.delete(memberPath, { orgId, userId: member.user_id });
				announce(`${member.name} was removed.`);
				await list.refresh();
				// The row (and its button) is gone: the page's heading takes the focus back.
				document.querySelector<HTMLElement>('main h1')?.focus();
			});
		});
		return row(
			member.name,
			member.email,
			badge(member.role, member.role === 'admin' ? 'good' : 'plain'),
			h('span', { class: 'row-actions' }, roleButton, removeButton),
		);
	}

	const addForm = formCard({
		title: 'Add a member',
		submit: 'Add member',
		fields: [
			field('Name', h('input', { name: 'name', required: true, maxlength: 200 })),
			field('E-mail', h('input', { name: 'email', type: 'email', required: true })),
			roleField(),
		],
		send: async (values, idempotencyKey) => {
			const added = await api.post(
				'/orgs/{orgId}/members',
				{
					body: {
						name: String(values.get('name')),
						email: String(values.get('email')),
						role: String(values.get('role')) as Role,
					},
					idempotencyKey,
				},
				{ orgId },
			);
			announce(`${added.name} was added as ${added.role}.`);
			await list.refresh();
		},
	});

	await list.refresh();
	return h('div', {}, h('h1', {}, 'Members'), feedback, list.element, addForm);
}
