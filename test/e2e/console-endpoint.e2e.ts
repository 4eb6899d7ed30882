import type { ApiClient } from '../../tooling/api/client';
import type { Bootstrapped } from '../../tooling/api/server-process';
import type { Receiver } from '../support/receiver';
import { Webhook } from 'standardwebhooks';
import { eventually } from '../../tooling/eventually';
import { consoleSuite } from './console-suite';

/**
 * A webhook endpoint's page of the web console (server/console/src/views/endpoint) in Debian's
 * Chromium: its deliveries and each attempt's answer, kept up to date, and what a person does there.
 */
describe("the web console's webhook endpoint page", () => {
	const suite = consoleSuite();
	let origin: string;
	let org: Bootstrapped;
	let admin: ApiClient;
	let receiver: Receiver;
	beforeAll(() => ({ origin, org, admin, receiver } = suite));
	const { openConsole, membersPath, addMember } = suite;

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

	it('keeps an opened answer open, and not fetched again, while the list updates around it', async () => {
		receiver.reply = (delivery) =>
			delivery.path === '/hooks/open' ? { status: 500, body: 'still broken' } : { status: 204 };
		const endpoint = (
			await admin.post(`/orgs/${org.org.id}/webhooks`, {
				url: `${receiver.url}/hooks/open`,
				event_types: ['lab.created'],
			})
		).body;
		await admin.post('/labs', { name: 'Opened answer 1', tier: 'vm' });
		const tab = await openConsole();
		await tab.signedIn(org.api_key);
		const detailsAsked: string[] = [];
		tab.page.on('request', (request) => {
			if (/\/deliveries\/[0-9a-f-]{36}$/.test(new URL(request.url()).pathname))
				detailsAsked.push(request.url());
		});
		await tab.page.goto(`${origin}/console/#/webhooks/${endpoint.id}`);
		const [{ event_id: eventId }] = (
			await admin.get(`/orgs/${org.org.id}/webhooks/${endpoint.id}/deliveries`)
		).body;
		const first = tab.page.getByRole('listitem').filter({ hasText: eventId });
		// Both attempts in (the next is an hour away): the page stays as it is read.
		await first.getByText('Attempt 2: failed').waitFor({ timeout: 30_000 });
		// Only an attempt that was answered has an answer to open: said here with the attempt's error.
		const [{ attempt_log: attempts }] = (
			await admin.get(`/orgs/${org.org.id}/webhooks/${endpoint.id}/deliveries`)
		).body;
		expect(attempts[0]).toMatchObject({ attempt: 1, status_code: 500 });
		const attempt = first.locator('li.attempt').filter({ hasText: 'Attempt 1: failed' });
		await attempt.getByText("Receiver's answer").click();
		await attempt.locator('pre').getByText('still broken').waitFor();
		expect(detailsAsked).toHaveLength(1);

		// The list changes around it: another delivery arrives at the top, a live update shows it.
		await admin.post('/labs', { name: 'Opened answer 2', tier: 'vm' });
		const deliveries = tab.page.getByRole('list', { name: 'Deliveries, newest first' });
		await eventually(
			async () => (await deliveries.locator(':scope > li').count()) === 2,
			'the new delivery on the page',
		);
		await deliveries
			.locator(':scope > li')
			.first()
			.getByText('Attempt 2: failed')
			.waitFor({ timeout: 30_000 });
		expect(
			await attempt.locator('details').evaluate((details) => (details as HTMLDetailsElement).open),
		).toBe(true);
		expect(await attempt.locator('pre').textContent()).toBe('still broken');
		expect(detailsAsked).toHaveLength(1);
	});

	it('shows its receiver holding and releasing it without a reload', async () => {
		const endpoint = (
			await admin.post(`/orgs/${org.org.id}/webhooks`, {
				url: `${receiver.url}/hooks/live-state`,
				event_types: ['member.removed'],
			})
		).body;
		const tab = await openConsole();
		await tab.signedIn(org.api_key);
		await tab.page.goto(`${origin}/console/#/webhooks/${endpoint.id}`);
		const facts = tab.page.locator('.facts');
		await facts.getByText('enabled', { exact: true }).waitFor();
		await tab.page.getByRole('button', { name: 'Send test event' }).waitFor();

		await admin.patch(`/orgs/${org.org.id}/webhooks/${endpoint.id}`, { held: true });
		await facts.getByText('held', { exact: true }).waitFor({ timeout: 15_000 });
		await facts.getByText('Its receiver is inactive (an n8n workflow deactivated)').waitFor();
		expect(await tab.page.getByRole('button', { name: 'Send test event' }).count()).toBe(0);

		await admin.patch(`/orgs/${org.org.id}/webhooks/${endpoint.id}`, { held: false });
		await facts.getByText('enabled', { exact: true }).waitFor({ timeout: 15_000 });
		await tab.page.getByRole('button', { name: 'Send test event' }).waitFor();
	});

	it('shows its health on the list and its page: what waits, the share delivered and the answer time, in words, bars and a table that stays open', async () => {
		// Removals are delivered; labs fail twice (at once, then a second later) and wait an hour.
		receiver.reply = (delivery) =>
			delivery.path === '/hooks/health' && JSON.parse(delivery.body).type === 'lab.created'
				? { status: 503, body: 'down' }
				: { status: 204 };
		const endpoint = (
			await admin.post(`/orgs/${org.org.id}/webhooks`, {
				url: `${receiver.url}/hooks/health`,
				event_types: ['member.removed', 'lab.created'],
			})
		).body;
		for (let n = 0; n < 3; n++) await admin.post('/labs', { name: `Unwell ${n}`, tier: 'vm' });
		const remove = async (name: string, email: string) =>
			await admin.delete(`${membersPath()}/${(await addMember(name, email)).user_id}`);
		await remove('Healthy Leaver', 'healthy.leaver@console.test');
		await remove('Healthy Leaver Two', 'healthy.leaver.two@console.test');
		const healthPath = `/orgs/${org.org.id}/webhooks/${endpoint.id}/health`;
		await eventually(
			async () => (await admin.get(healthPath)).body.last_hour.attempts === 8,
			'3 labs failed twice and 2 removals delivered',
			{ timeoutMs: 30_000 },
		);

		const tab = await openConsole();
		await tab.signedIn(org.api_key);
		await tab.goTo('Webhooks');
		const row = tab.page.getByRole('row').filter({ hasText: '/hooks/health' });
		await row.getByText('25 % of 8 attempts delivered in the last hour').waitFor();
		expect(await row.textContent()).toMatch(/3 waiting; the oldest since/);

		await tab.page.goto(`${origin}/console/#/webhooks/${endpoint.id}`);
		const health = tab.page.getByRole('region', { name: 'Health' });
		await health.getByText(/^3 waiting; the oldest since .* \(\d+ s ago\)\.$/).waitFor();
		expect(await health.getByRole('figure').count()).toBe(2);
		await health.getByText('25 % of 8 attempts delivered in the last hour').waitFor();
		await health.getByText('25 % of 8 attempts delivered in the last day').waitFor();
		// The bars are drawn for the eye only: the sentence and the table say the same.
		expect(await health.locator('svg[aria-hidden="true"]').count()).toBe(2);
		await health.getByText('Last hour, every 5 minutes').click();
		const points = health.getByRole('table', { name: 'Attempts every 5 minutes, last hour' });
		expect(await points.getByRole('row').count()).toBe(13);
		/**
		 * The table added up as a person reads it: the attempts fall in the last point, or in the last
		 * two when five minutes of the clock end meanwhile; each point tried has its answer time.
		 */
		const pointsTotal = async () => {
			const rows = await points
				.locator('tbody tr')
				.evaluateAll((trs) =>
					trs.map((tr) => Array.from((tr as HTMLTableRowElement).cells, (td) => td.textContent!)),
				);
			const tried = rows.filter(([, attempts]) => attempts !== '0');
			for (const [, , delivered, answer] of tried) {
				expect(delivered).toMatch(/^\d+ \(\d+ %\)$/);
				expect(answer).toMatch(/^\d+ ms$/);
			}
			return {
				attempts: tried.reduce((sum, [, attempts]) => sum + Number(attempts), 0),
				delivered: tried.reduce((sum, [, , delivered]) => sum + parseInt(delivered, 10), 0),
				pointsTried: tried.length,
			};
		};
		const total = await pointsTotal();
		expect([total.attempts, total.delivered]).toEqual([8, 2]);
		expect([1, 2]).toContain(total.pointsTried);

		// Another delivery: the page says so by itself, and the table a person opened stays open.
		await remove('Healthy Leaver Three', 'healthy.leaver.three@console.test');
		await health
			.getByText('33 % of 9 attempts delivered in the last hour')
			.waitFor({ timeout: 15_000 });
		expect(await points.isVisible()).toBe(true);
		expect(await pointsTotal()).toMatchObject({ attempts: 9, delivered: 3 });
	});

	it("tells each event type's meaning to a keyboard and a screen reader, and filters by any type", async () => {
		const catalogue = (await admin.get('/event-types')).body as Array<{
			type: string;
			description: string;
		}>;
		const describedAs = (type: string) => catalogue.find((info) => info.type === type)!.description;
		const endpoint = (
			await admin.post(`/orgs/${org.org.id}/webhooks`, {
				url: `${receiver.url}/hooks/described`,
				event_types: ['member.removed', 'org.closed'],
			})
		).body;
		const tab = await openConsole();
		await tab.signedIn(org.api_key);
		await tab.page.goto(`${origin}/console/#/webhooks/${endpoint.id}`);
		/** The text an element's aria-describedby points at: what a screen reader says after its name. */
		const description = (locator: ReturnType<typeof tab.page.getByRole>) =>
			locator.evaluate((element) =>
				(element.getAttribute('aria-describedby') ?? '')
					.split(' ')
					.map((id) => document.getElementById(id)?.textContent ?? '')
					.join(' ')
					.trim(),
			);

		// Each checkbox of the edit form, reached by keyboard, is described by its type's meaning.
		const edit = tab.page.getByRole('form', { name: 'Edit the endpoint' });
		const check = edit.getByRole('checkbox', { name: 'member.added' });
		await check.focus();
		await tab.page.keyboard.press('Space');
		expect(await check.isChecked()).toBe(true);
		expect(await description(check)).toBe(describedAs('member.added'));
		expect(await check.evaluate((element) => element.closest('label')!.title)).toBe('');

		// The test event's type: the meaning of the one chosen, said again as the choice changes.
		const test = tab.page.getByRole('form', { name: 'Send a test event' });
		const type = test.getByLabel('Event type');
		expect(await description(type)).toContain(describedAs('member.removed'));
		await type.focus();
		await tab.page.keyboard.press('ArrowDown');
		await eventually(
			async () => (await description(type)).includes(describedAs('org.closed')),
			'the description of the type now chosen',
		);

		// The filter offers every type, also one the endpoint does not (or no longer) subscribe to.
		const filter = tab.page
			.getByRole('form', { name: 'Filter deliveries' })
			.getByLabel('Events of type');
		const offered = await filter
			.locator('option')
			.evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
		expect(offered).toEqual(['', ...catalogue.map((info) => info.type)]);
		await filter.selectOption('lab.created');
		expect(await description(filter)).toBe(describedAs('lab.created'));
	});
});
