import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { ApiClient } from '../../tooling/api/client';
import {
	bootstrapOrg,
	spawnServer,
	type Bootstrapped,
	type ServerProcess,
} from '../../tooling/api/server-process';
import { ensureChromium, launchChromium } from '../../tooling/browser';
import { tempRoot } from '../../tooling/processes';
import { ROOT } from '../../tooling/root';
import { Receiver } from '../support/receiver';
import { eventually } from '../../tooling/eventually';
import { ConsolePage, DESKTOP, PHONE } from './console-page';

/**
 * The web tab (server/tab) in Debian's Chromium, driven with playwright-core against the
 * real API server: every flow a person uses it for, its security promises, and its accessibility.
 */
describe('the web console', () => {
	let dir: string;
	let server: ServerProcess;
	let origin: string;
	let org: Bootstrapped;
	let admin: ApiClient;
	let receiver: Receiver;
	let browser: Browser;
	const opened: ConsolePage[] = [];

	beforeAll(async () => {
		ensureChromium('The tab tests');
		// The console as `npm start` builds it.
		execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-console.mts')], {
			stdio: 'inherit',
		});
		dir = tempRoot();
		const databasePath = join(dir, 'api.sqlite');
		org = bootstrapOrg(databasePath, 'Console Training', 'ada@console.test');
		server = await spawnServer({
			DATABASE_PATH: databasePath,
			WEBHOOK_ALLOW_INSECURE_URLS: 'true',
			// A first retry a second after the first attempt (a failed and a successful attempt in one
			// test), then one an hour later (a retry still to come, to read on the page).
			WEBHOOK_RETRY_SCHEDULE_S: '1,3600',
		});
		origin = new URL(server.url).origin;
		admin = new ApiClient(server.url, org.api_key);
		receiver = await Receiver.start();
		browser = await launchChromium();
	});

	afterAll(async () => {
		await browser?.close();
		await receiver?.stop();
		await server?.stop();
		rmSync(dir, { recursive: true, force: true });
	});

	/** A tab in a fresh tab; closed after the test, and checked to have thrown nothing. */
	async function openConsole(viewport = DESKTOP): Promise<ConsolePage> {
		const page = await ConsolePage.open(browser, origin, viewport);
		opened.push(page);
		return page;
	}

	afterEach(async () => {
		for (const page of opened.splice(0)) {
			const errors = page.pageErrors;
			const elsewhere = page.requested.filter((url) => !url.startsWith(`${origin}/`));
			await page.close();
			expect(errors).toEqual([]);
			expect(elsewhere).toEqual([]);
		}
	});

	const membersPath = () => `/orgs/${org.org.id}/members`;

	async function memberNamed(name: string) {
		const members = (
			await admin.getAll<{ user_id: string; name: string; email: string }>(membersPath())
		).items;
		return members.find((member) => member.name === name);
	}

	async function addMember(name: string, email: string, role = 'trainer') {
		const response = await admin.post(membersPath(), { name, email, role });
		expect(response.status).toBe(201);
		return response.body as { user_id: string; name: string; email: string };
	}

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

	it('shows when a failing delivery is tried next', async () => {
		receiver.reply = (delivery) =>
			delivery.path === '/hooks/down'
				? { status: 503, body: 'down for maintenance' }
				: { status: 204 };
		const endpoint = (
			await admin.post(`/orgs/${org.org.id}/webhooks`, {
				url: `${receiver.url}/hooks/down`,
				event_types: ['lab.created'],
			})
		).body;
		await admin.post('/labs', { name: 'Never delivered', tier: 'vm' });
		const tab = await openConsole();
		await tab.signedIn(org.api_key);
		await tab.page.goto(`${origin}/console/#/webhooks/${endpoint.id}`);
		const delivery = tab.page.getByRole('listitem').filter({ hasText: 'lab.created' }).first();
		await delivery.getByText('Attempt 2: failed').waitFor({ timeout: 30_000 });
		const text = (await delivery.textContent())!;
		expect(text).toContain('failed');
		expect(text).toMatch(/Attempt 1: failed.*HTTP 503.*down for maintenance/s);
		// The hour of the schedule, ±10 % jitter.
		expect(text).toMatch(/Next retry.*\(in (5[4-9] min|1 h)\)/s);
	});

	it("shows why a delivery failed (the receiver's answer to each attempt) and filters the deliveries", async () => {
		receiver.reply = (delivery) =>
			delivery.path === '/hooks/why'
				? {
						status: 502,
						body: `<h1>Bad gateway</h1>${'.'.repeat(5000)}`,
						headers: { 'content-type': 'text/html', 'x-request-id': 'req-42' },
					}
				: { status: 204 };
		const endpoint = (
			await admin.post(`/orgs/${org.org.id}/webhooks`, {
				url: `${receiver.url}/hooks/why`,
				event_types: ['lab.created', 'session.created'],
			})
		).body;
		await admin.post('/labs', { name: 'Bad gateway', tier: 'vm' });
		await admin.post(`/orgs/${org.org.id}/webhooks/${endpoint.id}/test`, {
			event_type: 'session.created',
		});
		const tab = await openConsole();
		await tab.signedIn(org.api_key);
		await tab.page.goto(`${origin}/console/#/webhooks/${endpoint.id}`);
		const test = tab.page.getByRole('listitem').filter({ hasText: 'session.created' }).first();
		// Its retry comes a second later, the next in an hour: wait for both, so the page stays as read.
		await test.getByText('Attempt 2: failed').waitFor({ timeout: 30_000 });
		expect(await test.textContent()).toContain('test event');
		const first = test.locator('li.attempt').filter({ hasText: 'Attempt 1: failed' });
		await first.getByText("Receiver's answer").click();
		const answer = first.locator('.answer');
		await answer.getByText('Cut at 4 KB: the receiver sent more.').waitFor();
		expect(await answer.textContent()).toMatch(/content-type\s*text\/html/);
		expect(await answer.textContent()).toContain('req-42');
		expect(await answer.locator('pre').textContent()).toBe(
			`<h1>Bad gateway</h1>${'.'.repeat(4096 - 20)}`,
		);

		const filters = tab.page.getByRole('form', { name: 'Filter deliveries' });
		await filters.getByLabel('Test events').selectOption('false');
		await filters.getByRole('button', { name: 'Filter' }).click();
		const deliveries = tab.page.getByRole('list', { name: 'Deliveries, newest first' });
		await eventually(
			async () => !(await deliveries.textContent())!.includes('session.created'),
			'the test delivery filtered out',
		);
		expect(await deliveries.textContent()).toContain('lab.created');
		await filters.getByLabel('Status').selectOption('succeeded');
		await filters.getByRole('button', { name: 'Filter' }).click();
		await deliveries.getByText('No delivery matches these filters.').waitFor();
	});

	it('rotates a signing secret: the new one shown once, both signing deliveries meanwhile', async () => {
		receiver.reply = () => ({ status: 204 });
		const created = (
			await admin.post(`/orgs/${org.org.id}/webhooks`, {
				url: `${receiver.url}/hooks/rotated`,
				event_types: ['lab.created'],
			})
		).body;
		const tab = await openConsole();
		await tab.signedIn(org.api_key);
		await tab.page.goto(`${origin}/console/#/webhooks/${created.id}`);
		const form = tab.page.getByRole('form', { name: 'Rotate the signing secret' });
		await form.getByLabel('The old secret').selectOption('day');
		await form.getByRole('button', { name: 'Rotate secret' }).click();
		const shown = tab.page.getByRole('region', { name: 'New signing secret' });
		await shown.waitFor();
		const secret = (await shown.locator('code').textContent())!;
		expect(secret).toMatch(/^whsec_/);
		expect(await tab.page.locator('.facts').textContent()).toMatch(
			/Signing\s*with the new secret and the old one, until/,
		);
		// Reloaded, the page never shows it again.
		await tab.page.reload();
		await tab.page.getByRole('heading', { name: 'Deliveries', exact: true }).waitFor();
		expect(await tab.page.content()).not.toContain(secret);

		await admin.post('/labs', { name: 'Signed twice', tier: 'vm' });
		await receiver.waitFor(() => receiver.at('/hooks/rotated').length === 1);
		const [delivery] = receiver.at('/hooks/rotated');
		for (const key of [secret, created.secret])
			expect(new Webhook(key).verify(delivery.body, delivery.headers as never)).toMatchObject({
				type: 'lab.created',
			});
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
		await tab.page
			.getByRole('button', { name: `Delete endpoint ${receiver.url}/hooks/to-delete` })
			.click();
		await tab.page.getByRole('dialog').getByRole('button', { name: 'Delete endpoint' }).click();
		await tab.page.getByRole('status').filter({ hasText: 'The endpoint was deleted.' }).waitFor();
		expect((await admin.get(`/orgs/${org.org.id}/webhooks/${endpoint.id}`)).status).toBe(404);
		expect(await tab.page.locator('main').textContent()).not.toContain('/hooks/to-delete');
	});

	it('sends a test event, resends a delivery, disables, enables and recovers an endpoint, and edits it; refusals say what the API said', async () => {
		receiver.reply = () => ({ status: 204 });
		const path = '/hooks/operations';
		const created = (
			await admin.post(`/orgs/${org.org.id}/webhooks`, {
				url: `${receiver.url}${path}`,
				event_types: ['member.removed', 'org.closed'],
			})
		).body;
		const verified = (index: number) =>
			new Webhook(created.secret).verify(
				receiver.at(path)[index].body,
				receiver.at(path)[index].headers as Record<string, string>,
			) as { id: string; type: string; test?: boolean; resend?: number; data: any };
		const tab = await openConsole();
		await tab.signedIn(org.api_key);
		await tab.goTo('Webhooks');
		await tab.page.getByRole('link', { name: `${receiver.url}${path}` }).click();
		await tab.heading('Deliveries').waitFor();
		const status = (text: string) => tab.page.getByRole('status').filter({ hasText: text });

		// A test event of the type picked: signed, marked as a test, and listed as one.
		await tab.page.getByLabel('Event type').selectOption('org.closed');
		await tab.page.getByRole('button', { name: 'Send test event' }).click();
		await status('A test org.closed event was queued.').waitFor();
		await receiver.waitFor(() => receiver.at(path).length === 1);
		expect(verified(0)).toMatchObject({ type: 'org.closed', test: true });
		const testItem = tab.page.getByRole('listitem').filter({ hasText: 'test event' });
		await testItem.getByText('Attempt 1: delivered').waitFor();

		// Resend: the same event again, marked as the first resend.
		await testItem.getByRole('button', { name: 'Resend' }).click();
		await status('The org.closed event is being sent again.').waitFor();
		await receiver.waitFor(() => receiver.at(path).length === 2);
		expect(verified(1)).toMatchObject({ id: verified(0).id, resend: 1 });
		await testItem.getByText('resent 1×').waitFor();

		// Disabled: what happens meanwhile is kept, not sent; the API refuses a test event and says why.
		await tab.page.getByRole('button', { name: 'Disable endpoint…' }).click();
		await tab.page.getByRole('dialog').getByRole('button', { name: 'Disable endpoint' }).click();
		await status('The endpoint is disabled.').waitFor();
		const leaving = await addMember('Kept While Disabled', 'kept@console.test');
		await admin.delete(`${membersPath()}/${leaving.user_id}`);
		await tab.page.getByText('Not sent: the endpoint was disabled.').waitFor();
		await tab.page.getByRole('button', { name: 'Send test event' }).click();
		await tab.alert().waitFor();
		expect(await tab.alert().textContent()).toContain(
			'This endpoint is disabled, so nothing is sent to it.',
		);
		expect(await tab.alert().textContent()).toContain('409 · invalid_state');
		expect(receiver.at(path)).toHaveLength(2);

		// Enabled again, then recovered from when it was disabled: the kept removal arrives.
		await tab.page.getByRole('button', { name: 'Enable endpoint' }).click();
		await status('The endpoint is enabled.').waitFor();
		await tab.page.getByText('From when it was disabled').waitFor();
		await tab.page.getByRole('button', { name: 'Recover deliveries' }).click();
		await status('1 delivery was queued again.').waitFor();
		await receiver.waitFor(() => receiver.at(path).length === 3);
		expect(verified(2)).toMatchObject({
			type: 'member.removed',
			data: { user_id: leaving.user_id },
		});

		// Edited: new events and description; another endpoint's URL is refused with the API's message.
		await tab.page.getByRole('checkbox', { name: 'org.closed' }).uncheck();
		await tab.page.getByLabel('Description (optional)').fill('Offboarding in n8n');
		await tab.page.getByRole('button', { name: 'Save changes' }).click();
		await status('The endpoint was changed.').waitFor();
		const facts = tab.page.locator('.facts');
		await facts.getByText('Offboarding in n8n').waitFor();
		expect(await facts.textContent()).not.toContain('org.closed');
		expect((await admin.get(`/orgs/${org.org.id}/webhooks/${created.id}`)).body).toMatchObject({
			event_types: ['member.removed'],
			description: 'Offboarding in n8n',
		});
		const other = (
			await admin.post(`/orgs/${org.org.id}/webhooks`, {
				url: `${receiver.url}/hooks/taken`,
				event_types: ['lab.created'],
			})
		).body;
		await tab.page.getByLabel('URL').fill(other.url);
		await tab.page.getByRole('button', { name: 'Save changes' }).click();
		await tab.alert().filter({ hasText: '409 · url_taken' }).waitFor();
		expect((await admin.get(`/orgs/${org.org.id}/webhooks/${created.id}`)).body.url).toBe(
			created.url,
		);
	});

	it('shows an endpoint its n8n workflow holds: what it keeps, that it requires receipts, and no test or recovery', async () => {
		const url = `${receiver.url}/hooks/held`;
		const endpoint = (
			await admin.post(`/orgs/${org.org.id}/webhooks`, {
				url,
				event_types: ['member.removed'],
				require_receipt: true,
			})
		).body;
		await admin.patch(`/orgs/${org.org.id}/webhooks/${endpoint.id}`, { held: true });
		const kept = await addMember('Kept While Held', 'kept.held@console.test');
		await admin.delete(`${membersPath()}/${kept.user_id}`);
		const tab = await openConsole();
		await tab.signedIn(org.api_key);
		await tab.goTo('Webhooks');
		const row = tab.page.getByRole('row').filter({ hasText: url });
		expect(await row.textContent()).toContain('held');
		await tab.page.getByRole('link', { name: url }).click();
		await tab.heading('Deliveries').waitFor();
		const facts = tab.page.locator('.facts');
		await facts.getByText('Its receiver is inactive (an n8n workflow deactivated)').waitFor();
		expect(await facts.textContent()).toContain(
			"the receiver answers 2xx with the delivery's receipt",
		);
		expect(await tab.page.getByRole('button', { name: 'Send test event' }).count()).toBe(0);
		expect(await tab.page.getByRole('button', { name: 'Recover deliveries' }).count()).toBe(0);
		const delivery = tab.page.getByRole('listitem').filter({ hasText: 'member.removed' }).first();
		await delivery.getByText('sent when its receiver is back').waitFor();
		expect(await delivery.textContent()).not.toContain('Next retry');
		expect(await delivery.getByRole('button', { name: 'Resend' }).count()).toBe(0);
		expect(receiver.at('/hooks/held')).toEqual([]);
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
		const closing = bootstrapOrg(join(dir, 'api.sqlite'), 'Closing Down', 'owner@closing.test');
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
				await check(section);
			}
			await tab.page.goto(`${origin}/console/#/webhooks/${endpoint.id}`);
			await tab.page.getByText('Attempt 1: delivered').waitFor();
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
