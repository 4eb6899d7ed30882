// `node tooling/commands/console-screenshots.mts`: the console pictures CONTRIBUTING.md shows
// (docs/images/console-*.png), taken in Debian's Chromium from a demo organization in a temp
// folder: a member removed, and the endpoint's page with the delivery that followed to a receiver
// that failed once.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../api/client.ts';
import { bootstrapOrg, spawnServer } from '../api/server-process.ts';
import { ensureChromium, launchChromium } from '../browser.ts';
import { buildConsole } from '../../scripts/build-console.mts';
import { eventually } from '../eventually.ts';
import { ROOT } from '../root.ts';

ensureChromium('The console screenshots');
await buildConsole();
const dir = mkdtempSync(join(tmpdir(), 'traininglab-screenshots-'));
const databasePath = join(dir, 'api.sqlite');
const org = bootstrapOrg(databasePath, 'Demo Training', 'admin@demo.test');
const server = await spawnServer({
	DATABASE_PATH: databasePath,
	WEBHOOK_ALLOW_INSECURE_URLS: 'true',
	WEBHOOK_RETRY_SCHEDULE_S: '1',
});
let calls = 0;
const receiver = createServer((_req, res) => {
	res.statusCode = ++calls === 1 ? 503 : 204;
	res.end(calls === 1 ? 'n8n is restarting' : undefined);
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const browser = await launchChromium();
try {
	const api = new ApiClient(server.url, org.api_key);
	const port = (receiver.address() as AddressInfo).port;
	const webhook = (
		await api.post(`/orgs/${org.org.id}/webhooks`, {
			url: `http://127.0.0.1:${port}/webhook/training-lab`,
			event_types: ['member.removed'],
			description: 'n8n: react to member removal',
		})
	).body;
	const members = (await api.get(`/orgs/${org.org.id}/members`)).body;
	const trainer = members.find((member: { role: string }) => member.role === 'trainer');
	await api.delete(`/orgs/${org.org.id}/members/${trainer.user_id}`);
	await eventually(() => calls >= 2, 'the retry to succeed', { timeoutMs: 30_000 });

	const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
	await page.goto(`${new URL(server.url).origin}/console/#/webhooks/${webhook.id}`);
	await page.getByLabel('API key').fill(org.api_key);
	await page.getByRole('button', { name: 'Sign in' }).click();
	await page.getByText('Attempt 2: delivered').waitFor();
	await page.mouse.move(0, 0);
	const shot = (name: string) =>
		page.screenshot({ path: join(ROOT, 'docs', 'images', `console-${name}.png`) });
	// The endpoint's page holds its actions above the deliveries: tall enough to show both.
	await page.setViewportSize({ width: 1280, height: 1000 });
	await shot('deliveries');
	await page.setViewportSize({ width: 1280, height: 720 });
	await page.goto(`${new URL(server.url).origin}/console/#/members`);
	await page.getByRole('heading', { name: 'Members' }).waitFor();
	await page
		.getByRole('button', { name: /^Remove / })
		.last()
		.click();
	await page.getByRole('dialog').waitFor();
	await shot('remove-member');
	console.log('docs/images/console-deliveries.png, docs/images/console-remove-member.png');
} finally {
	await browser.close();
	receiver.close();
	await server.stop();
	rmSync(dir, { recursive: true, force: true });
}
