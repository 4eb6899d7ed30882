import type { ApiClient } from '../../tooling/api/client';
import {
	bootstrapOrg,
	type Bootstrapped,
	type ServerProcess,
} from '../../tooling/api/server-process';
import type { Receiver } from '../support/receiver';
import { Webhook } from 'standardwebhooks';
import { DESKTOP, PHONE } from './console-page';
import { consoleSuite } from './console-suite';

/**
 * The web console (server/console) in Debian's Chromium, driven with playwright-core against the real
 * API server: every flow a person uses it for, its security promises, and its accessibility. The
 * endpoint page has a suite of its own (console-endpoint.e2e.ts).
 */
describe('the web console', () => {
	const suite = consoleSuite();
	let server: ServerProcess;
	let origin: string;
	let org: Bootstrapped;
	let admin: ApiClient;
	let receiver: Receiver;
	beforeAll(() => ({ server, origin, org, admin, receiver } = suite));
	const { openConsole, membersPath, memberNamed, addMember } = suite;

	it('is served with a strict policy, from / too, and nothing but its own scripts can write HTML', async () => {
		const response = await fetch(`${origin}/console/`);
		expect(response.status).toBe(200);
		const policy = response.headers.get('content-security-policy') ?? '';
		for (const directive of [
			"default-src 'none'",
			"script-src 'self'",
			"style-src 'self'",
			"connect-src 'self'",
			"frame-ancestors 'none'",
			"require-trusted-types-for 'script'",
		])
			expect(policy).toContain(directive);
		expect(policy).not.toContain('unsafe-inline');
		expect(response.headers.get('referrer-policy')).toBe('no-referrer');
		expect(response.headers.get('x-frame-options')).toBe('DENY');
		expect(response.headers.get('set-cookie')).toBeNull();

		const root = await fetch(`${origin}/`, { redirect: 'manual' });
		expect(root.status).toBe(302);
		expect(root.headers.get('location')).toBe('/console/');

		const tab = await openConsole();
		await tab.heading('Training Lab console').waitFor();
		// Trusted Types: a string can no longer become HTML in this page, whoever tries.
		const attempt = await tab.page.evaluate(() => {
			try {
				document.body.insertAdjacentHTML('beforeend', '<b id="injected">x</b>');
				return 'parsed';
			} catch (error) {
				return (error as Error).name;
			}
		});
		expect(attempt).toBe('TypeError');
		expect(await tab.page.locator('#injected').count()).toBe(0);
	});

	it('refuses a bad key with the API’s own message and keeps nothing', async () => {
		const refusal = (await admin.as('tlk_not-a-real-key').get('/me')).body.error.message;
		const tab = await openConsole();
		await tab.signIn('tlk_not-a-real-key');
		await expect(tab.alert().textContent()).resolves.toContain(refusal);
		expect(await tab.alert().textContent()).toContain('401 · unauthorized');
		await expect(tab.heading('Training Lab console').isVisible()).resolves.toBe(true);
		expect(await tab.storage()).toEqual({ session: {}, local: {}, cookie: '' });
	});

	it('keeps the key in this tab only, never in the address or a cookie, and forgets it on sign-out', async () => {
		const tab = await openConsole();
		await tab.signedIn(org.api_key);
		await expect(
			tab.page.getByText(org.org.name, { exact: true }).first().isVisible(),
		).resolves.toBe(true);
		const stored = await tab.storage();
		expect(Object.values(stored.session)).toEqual([org.api_key]);
		expect(stored.local).toEqual({});
		expect(stored.cookie).toBe('');
		expect(await tab.context.cookies()).toEqual([]);

		await tab.goTo('Members');
		await tab.page.reload();
		await tab.heading('Members').waitFor(); // the same tab stays signed in
		expect(tab.page.url()).not.toContain(org.api_key);

		const otherTab = await tab.context.newPage();
		await otherTab.goto(`${origin}/console/#/members`);
		await otherTab.getByLabel('API key').waitFor(); // another tab starts signed out
		await otherTab.close();

		await tab.page.getByRole('button', { name: 'Sign out' }).click();
		await tab.heading('Training Lab console').waitFor();
		expect(await tab.storage()).toEqual({ session: {}, local: {}, cookie: '' });
		await tab.page.reload();
		await tab.page.getByLabel('API key').waitFor();
		expect(server.output()).not.toContain(org.api_key);
	});

	it('by keyboard alone: removes a member, then reads the delivery that followed, one failed attempt and one that succeeded', async () => {
		const leaving = await addMember('Grace Leaving', 'grace@console.test');
		let calls = 0;
		receiver.reply = () =>
			++calls === 1 ? { status: 500, body: 'receiver restarting' } : { status: 204 };
		const tab = await openConsole();
		await tab.signedIn(org.api_key);

		// The endpoint, made in the tab; its secret is shown once and verifies the deliveries.
		await tab.goTo('Webhooks');
		await tab.page.getByLabel('URL').fill(`${receiver.url}/hooks/console`);
		await tab.page.getByRole('checkbox', { name: 'member.removed' }).check();
		await tab.page.getByRole('button', { name: 'Create endpoint' }).click();
		const secret = (await tab.page.locator('.secret').textContent())!;
		expect(secret).toMatch(/^whsec_/);
		await expect(
			tab.page.getByRole('button', { name: 'Copy Signing secret' }).isVisible(),
		).resolves.toBe(true);

		// From here on, the keyboard only.
		await tab.tabTo('Members');
		await tab.page.keyboard.press('Enter');
		await tab.heading('Members').waitFor();
		await tab.tabTo('Remove Grace Leaving');
		await tab.page.keyboard.press('Enter');
		const dialog = tab.page.getByRole('dialog', { name: 'Remove Grace Leaving?' });
		await dialog.waitFor();
		expect(await dialog.textContent()).toContain('grace@console.test');
		await tab.tabTo('Remove Grace Leaving'); // the dialog's own confirm button
		await tab.page.keyboard.press('Enter');
		await tab.page.getByRole('status').filter({ hasText: 'Grace Leaving was removed.' }).waitFor();
		expect(await memberNamed('Grace Leaving')).toBeUndefined();

		await tab.tabTo('Webhooks');
		await tab.page.keyboard.press('Enter');
		await tab.heading('Webhooks').waitFor();
		await tab.tabTo('Deliveries');
		await tab.page.keyboard.press('Enter');
		await tab.heading('Deliveries').waitFor();
		const delivery = tab.page
			.getByRole('listitem')
			.filter({ has: tab.page.getByRole('heading', { name: /member\.removed/ }) })
			.first();
		// The page updates by itself: the retry a second later appears without a reload.
		await delivery.getByText('Attempt 2: delivered').waitFor({ timeout: 30_000 });
		const text = (await delivery.textContent())!;
		expect(text).toContain('succeeded');
		expect(text).toMatch(/Attempt 1: failed.*HTTP 500.*receiver restarting/s);
		expect(text).toMatch(/Attempt 2: delivered.*\d+ ms · HTTP 204/s);

		const received = receiver.at('/hooks/console');
		expect(received).toHaveLength(2);
		const body = new Webhook(secret).verify(
			received[1].body,
			received[1].headers as Record<string, string>,
		) as { type: string; data: { user_id: string } };
		expect(body).toMatchObject({ type: 'member.removed', data: { user_id: leaving.user_id } });
	});

	it('signs a trainer in with a key made in the console, and shows the API’s refusal of an admin action', async () => {
		const staying = await addMember('Hopper Staying', 'hopper@console.test');
		const tab = await openConsole();
		await tab.signedIn(org.api_key);
		await tab.goTo('API keys');
		await tab.page.getByLabel('Name').fill('trainer laptop');
		await tab.page.getByLabel('Role').selectOption('trainer');
		await tab.page.getByRole('button', { name: 'Create key' }).click();
		const trainerKey = (await tab.page.locator('.secret').textContent())!;
		expect(trainerKey).toMatch(/^tlk_/);
		await tab.page.getByRole('button', { name: 'Copy API key “trainer laptop”' }).click();
		await tab.page.getByText('Copied.').waitFor();
		expect(await tab.page.evaluate(() => navigator.clipboard.readText())).toBe(trainerKey);
		// Shown once: the list has only its prefix, and leaving the page loses it.
		await tab.goTo('Members');
		await tab.goTo('API keys');
		expect(await tab.page.locator('main').textContent()).not.toContain(trainerKey);
		expect(await tab.page.locator('main').textContent()).toContain(`${trainerKey.slice(0, 12)}…`);

		await tab.page.getByRole('button', { name: 'Sign out' }).click();
		await tab.signedIn(trainerKey); // signing out went back to the overview
		expect(await tab.page.locator('.role').textContent()).toBe('trainer');
		await tab.goTo('Members');
		await tab.page.getByRole('button', { name: 'Remove Hopper Staying' }).click();
		await tab.page
			.getByRole('dialog')
			.getByRole('button', { name: 'Remove Hopper Staying' })
			.click();
		const refusal = (await admin.as(trainerKey).delete(`${membersPath()}/${staying.user_id}`)).body
			.error.message as string;
		await tab.alert().waitFor();
		expect(await tab.alert().textContent()).toContain(refusal);
		expect(await tab.alert().textContent()).toContain('403 · forbidden');
		expect(await memberNamed('Hopper Staying')).toBeDefined();

		// Pages of admin-only endpoints say what the API said, too.
		await tab.goTo('Activity');
		expect(await tab.alert().textContent()).toContain('403 · forbidden');
	});

	it('shows a name that is HTML as text', async () => {
		const name = '<img src=x onerror="window.__owned=1">';
		const tab = await openConsole();
		await tab.signedIn(org.api_key);
		await tab.goTo('Members');
		await tab.page.getByLabel('Name').fill(name);
		await tab.page.getByLabel('E-mail').fill('xss@console.test');
		await tab.page.getByRole('button', { name: 'Add member' }).click();
		await tab.page.getByRole('cell', { name, exact: true }).waitFor();
		expect(await tab.page.locator('main img').count()).toBe(0);
		expect(await tab.page.evaluate(() => (window as { __owned?: number }).__owned)).toBeUndefined();
		// And in a confirmation, which names the person.
		await tab.page.getByRole('button', { name: `Remove ${name}` }).click();
		await expect(tab.page.getByRole('dialog').textContent()).resolves.toContain(name);
		await tab.page.keyboard.press('Escape');
		expect(await tab.page.locator('img').count()).toBe(0);
	});

	it('changes a member’s role, and deletes a webhook endpoint', async () => {
		const promoted = await addMember('Ada Promoted', 'ada.promoted@console.test');
		const endpoint = (
			await admin.post(`/orgs/${org.org.id}/webhooks`, {
				url: `${receiver.url}/hooks/to-delete`,
				event_types: ['session.created'],
			})
		).body;
		const tab = await openConsole();
		await tab.signedIn(org.api_key);
		await tab.goTo('Members');
		await tab.page.getByRole('button', { name: 'Make admin: Ada Promoted' }).click();
		await tab.page.getByRole('button', { name: 'Make trainer: Ada Promoted' }).waitFor();
		const members = (await admin.getAll<{ user_id: string; role: string }>(membersPath())).items;
		expect(members.find((member) => member.user_id === promoted.user_id)?.role).toBe('admin');

		await tab.goTo('Webhooks');
		const listed = tab.page.getByRole('link', { name: `${receiver.url}/hooks/to-delete` });
		await listed.waitFor();
		await tab.page
			.getByRole('button', { name: `Delete endpoint ${receiver.url}/hooks/to-delete` })
			.click();
		await tab.page.getByRole('dialog').getByRole('button', { name: 'Delete endpoint' }).click();
		await tab.page.getByRole('status').filter({ hasText: 'The endpoint was deleted.' }).waitFor();
		expect((await admin.get(`/orgs/${org.org.id}/webhooks/${endpoint.id}`)).status).toBe(404);
		// The status is announced before the list is read again; wait for the list.
		await listed.waitFor({ state: 'detached' });
		expect(await tab.page.locator('main').textContent()).not.toContain('/hooks/to-delete');
	});

	it('runs a session: create from a published version, open, start, a join code shown once, end, delete', async () => {
		const tab = await openConsole();
		await tab.signedIn(org.api_key);
		await tab.goTo('Sessions');
		await tab.page.getByLabel('Title').fill('Console onboarding');
		await tab.page
			.getByLabel('Lab version')
			.selectOption({ label: 'Kubernetes Basics — version 1' });
		await tab.page.getByLabel('Capacity').fill('12');
		await tab.page.getByRole('button', { name: 'Create session' }).click();
		await tab.page.getByRole('link', { name: 'Console onboarding' }).first().click();
		await tab.heading('Console onboarding').waitFor();
		expect(await tab.page.locator('.facts').textContent()).toContain('0 of 12');

		await tab.page.getByRole('button', { name: 'Start session' }).click();
		await tab.page.getByText('running', { exact: true }).waitFor();
		await tab.page.getByRole('button', { name: 'New join code' }).click();
		const code = (await tab.page.locator('.secret').textContent())!;
		expect(code).toMatch(/^[A-Z0-9]{8}$/);
		const sessionId = tab.page.url().split('/').pop()!;
		const joined = await admin.post('/join', {
			join_code: code,
			email: 'p@console.test',
			name: 'P',
		});
		expect(joined.body.session_id).toBe(sessionId);

		await tab.page.getByRole('button', { name: 'End session' }).click();
		await tab.page.getByText('ended', { exact: true }).waitFor();
		expect(await tab.page.locator('.facts').textContent()).toContain('1 of 12');
		await tab.page.getByRole('button', { name: 'Delete session' }).click();
		await tab.page.getByRole('dialog').getByRole('button', { name: 'Delete session' }).click();
		await tab.heading('Sessions').waitFor();
		expect((await admin.get(`/sessions/${sessionId}`)).status).toBe(404);
	});

	it('pages through sessions', async () => {
		const [version] = (
			await admin.get(`/labs/${(await admin.get('/labs')).body[0].id}/versions`)
		).body.filter((candidate: { status: string }) => candidate.status === 'published');
		for (let index = 1; index <= 30; index++)
			await admin.post('/sessions', {
				title: `Paged ${String(index).padStart(2, '0')}`,
				lab_version_id: version.id,
				capacity: 5,
			});
		const tab = await openConsole();
		await tab.signedIn(org.api_key);
		await tab.goTo('Sessions');
		const titles = () => tab.page.locator('tbody tr td:first-child').allTextContents();
		const first = await titles();
		expect(first).toHaveLength(25);
		await tab.page.getByRole('button', { name: 'Next page' }).click();
		await tab.page.getByText('Page 2').waitFor();
		const second = await titles();
		expect(second.length).toBeGreaterThanOrEqual(5);
		expect(second.filter((title) => first.includes(title))).toEqual([]);
		await tab.page.getByRole('button', { name: 'Previous page' }).click();
		await tab.page.getByText('Page 1').waitFor();
		expect(await titles()).toEqual(first);
	});

	it('creates a lab, a draft version, and publishes it', async () => {
		const tab = await openConsole();
		await tab.signedIn(org.api_key);
		await tab.goTo('Labs');
		await tab.page.getByLabel('Name').fill('Networking 101');
		await tab.page.getByLabel('Tier').selectOption('container');
		await tab.page.getByRole('button', { name: 'Create lab' }).click();
		await tab.page.getByRole('link', { name: 'Networking 101' }).click();
		await tab.heading('Networking 101').waitFor();
		await tab.page.getByRole('button', { name: 'Create a draft version' }).click();
		await tab.page.getByRole('button', { name: 'Publish version 1' }).click();
		await tab.page.getByRole('cell', { name: 'published' }).waitFor();
		// A lab's name taken: the API's message, in the form.
		await tab.goTo('Labs');
		await tab.page.getByLabel('Name').fill('Networking 101');
		await tab.page.getByRole('button', { name: 'Create lab' }).click();
		expect(await tab.alert().textContent()).toContain('409 · name_taken');
	});

	it('revokes a key, which stops working at once', async () => {
		const created = (
			await admin.post(`/orgs/${org.org.id}/api-keys`, { name: 'to revoke', role: 'trainer' })
		).body;
		const tab = await openConsole();
		await tab.signedIn(org.api_key);
		await tab.goTo('API keys');
		await tab.page.getByRole('button', { name: 'Revoke key to revoke' }).click();
		await tab.page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
		await tab.page.getByRole('status').filter({ hasText: 'was revoked' }).waitFor();
		expect((await admin.as(created.key).get('/me')).status).toBe(401);
	});

	it('adds events to the activity log while it is open', async () => {
		const tab = await openConsole();
		await tab.signedIn(org.api_key);
		await tab.goTo('Activity');
		await admin.post('/labs', { name: 'Appears live', tier: 'vm' });
		await tab.page.getByText('Appears live', { exact: true }).waitFor({ timeout: 30_000 });
		expect(await tab.page.locator('tbody tr').first().textContent()).toContain('lab.created');
	});

	it('closes an organization only once its slug is typed, then signs out', async () => {
		const closing = bootstrapOrg(suite.databasePath, 'Closing Down', 'owner@closing.test');
		const tab = await openConsole();
		await tab.signedIn(closing.api_key);
		await tab.goTo('Organization');
		await tab.page.getByRole('button', { name: 'Close the organization…' }).click();
		const dialog = tab.page.getByRole('dialog');
		const confirm = dialog.getByRole('button', { name: 'Close the organization' });
		await dialog.getByLabel('Type closing-down to confirm').fill('closing');
		expect(await confirm.isDisabled()).toBe(true);
		await dialog.getByLabel('Type closing-down to confirm').fill('closing-down');
		await confirm.click();
		await tab.heading('Training Lab console').waitFor();
		expect(await tab.alert().textContent()).toContain('401 · unauthorized');
		expect(await tab.storage()).toEqual({ session: {}, local: {}, cookie: '' });
		expect((await admin.as(closing.api_key).get('/me')).status).toBe(401);
	});

	it.each([
		['at 1280 px', DESKTOP],
		['on a phone', PHONE],
	])(
		'has no serious or critical accessibility violation on any page, %s',
		async (_label, viewport) => {
			// Something on every page: an endpoint with a delivery, and a session.
			const endpoint = (
				await admin.post(`/orgs/${org.org.id}/webhooks`, {
					url: `${receiver.url}/hooks/a11y-${viewport.width}`,
					event_types: ['lab.created'],
				})
			).body;
			await admin.post('/labs', { name: `Accessible ${viewport.width}`, tier: 'vm' });
			const [version] = (
				await admin.get(`/labs/${(await admin.get('/labs')).body[0].id}/versions`)
			).body.filter((candidate: { status: string }) => candidate.status === 'published');
			const session = (
				await admin.post('/sessions', {
					// Long enough to squeeze the other columns to their narrowest.
					title: `A11y ${viewport.width} ${'a-session-title-without-spaces-'.repeat(6)}`,
					lab_version_id: version.id,
					capacity: 3,
				})
			).body;
			const tab = await openConsole(viewport);
			const found: Record<string, unknown> = {};
			const check = async (name: string) => {
				const violations = await tab.accessibilityViolations();
				if (violations.length > 0) found[name] = violations;
				// Nothing is wider than the window: no page scrolls sideways.
				const overflow = await tab.page.evaluate(
					() => document.documentElement.scrollWidth - window.innerWidth,
				);
				if (overflow > 0) found[`${name} (width)`] = `${overflow} px wider than the window`;
				// A column's name breaks between words, never inside one ("Capaci ty").
				const broken = await tab.page.evaluate(() =>
					Array.from(document.querySelectorAll('th'))
						// On a phone the column names are hidden (each cell shows its own).
						.filter((th) => th.closest('thead')!.getBoundingClientRect().width > 1)
						.flatMap((th) => {
							const text = th.firstChild;
							if (!(text instanceof Text)) return [];
							return [...text.data.matchAll(/\S+/g)]
								.filter((word) => {
									const range = document.createRange();
									range.setStart(text, word.index);
									range.setEnd(text, word.index + word[0].length);
									return range.getClientRects().length > 1;
								})
								.map((word) => word[0]);
						}),
				);
				if (broken.length > 0) found[`${name} (column names)`] = `broken inside: ${broken}`;
			};
			await check('sign-in');
			await tab.signedIn(org.api_key);
			await check('overview');
			for (const section of [
				'Members',
				'Sessions',
				'Labs',
				'API keys',
				'Webhooks',
				'Activity',
				'Organization',
			]) {
				await tab.goTo(section);
				// Each endpoint's health comes after the list: checked once it is there.
				if (section === 'Webhooks') await tab.page.locator('.health-cell svg').first().waitFor();
				await check(section);
			}
			await tab.page.goto(`${origin}/console/#/webhooks/${endpoint.id}`);
			await tab.page.getByText('Attempt 1: delivered').waitFor();
			// The health's tables open, so that they are checked too.
			await tab.page.getByText('Last hour, every 5 minutes').click();
			await tab.page.getByText('Last day, every hour').click();
			await check('deliveries');
			await tab.page.goto(`${origin}/console/#/sessions/${session.id}`);
			await tab.heading(session.title).waitFor();
			await check('session');
			await tab.page.getByRole('button', { name: 'Delete session' }).click();
			await tab.page.getByRole('dialog').waitFor();
			await check('confirmation dialog');
			expect(found).toEqual({});
		},
	);
});
