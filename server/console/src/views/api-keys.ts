import { h, replaceChildren } from '../dom.ts';
import { time } from '../format.ts';
import type { ViewContext } from './context.ts';
import { all } from '../api.ts';
import type { ApiKey, Role } from '../types.ts';
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
	secretOnce,
} from '../ui.ts';

export async function apiKeysPage(context: ViewContext): Promise<HTMLElement> {
	const { api, me } = context;
	const orgId = me.org.id;
	const feedback = h('div', { class: 'feedback' });
	const list = listTable(
		context,
		() => all(api, '/orgs/{orgId}/api-keys', { orgId }),
		'API keys',
		['Name', 'Prefix', 'Role', 'Created', 'State', 'Actions'],
		keyRow,
	);

	function keyRow(key: ApiKey): HTMLTableRowElement {
		const revoke = key.revoked_at
			? null
			: h(
					'button',
					{ type: 'button', class: 'danger', 'aria-label': `Revoke key ${key.name}` },
					'Revoke',
				);
		revoke?.addEventListener('click', async () => {
			const sure = await confirmAction({
				title: `Revoke the key “${key.name}”?`,
				body: [
					h(
						'p',
						{},
						`Anything using the key ${key.prefix}… stops working at once. This cannot be undone.`,
					),
				],
				confirmLabel: 'Revoke key',
			});
			if (!sure) return revoke.focus();
			await act(revoke, feedback, async () => {
				await api.delete('/orgs/{orgId}/api-keys/{keyId}', { orgId, keyId: key.id });
				announce(`The key “${key.name}” was revoked.`);
				await list.refresh();
			});
		});
		return row(
			key.name,
			h('code', {}, `${key.prefix}…`),
			key.role,
			time(key.created_at),
			key.revoked_at
				? h('span', {}, badge('revoked', 'bad'), ' ', time(key.revoked_at))
				: badge('active', 'good'),
			revoke,
		);
	}

	const secretSlot = h('div', {});
	const form = formCard({
		title: 'Create an API key',
		submit: 'Create key',
		fields: [
			field(
				'Name',
				h('input', { name: 'name', required: true, maxlength: 200 }),
				'What uses it, e.g. “n8n production”.',
			),
			roleField(),
		],
		send: async (values, idempotencyKey) => {
			const created = await api.post(
				'/orgs/{orgId}/api-keys',
				{
					body: { name: String(values.get('name')), role: String(values.get('role')) as Role },
					idempotencyKey,
				},
				{ orgId },
			);
			replaceChildren(
				secretSlot,
				secretOnce(
					`API key “${created.name}”`,
					created.key,
					'Copy it now: the API shows a key once, and never again.',
				),
			);
			announce(`The key “${created.name}” was created. Copy it now: it is shown once.`);
			await list.refresh();
		},
	});

	await list.refresh();
	return h('div', {}, h('h1', {}, 'API keys'), feedback, secretSlot, list.element, form);
}
