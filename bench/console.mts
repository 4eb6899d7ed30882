import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { spawnServer } from '../tooling/api/server-process.ts';
import { ensureChromium, launchChromium } from '../tooling/browser.ts';
import { buildConsole, CONSOLE_BUILD } from '../scripts/build-console.mts';
import { api, bootstrap, median, tempDir } from './support.mts';

export interface ConsoleResult {
	files: number;
	bytes: number;
	gzipBytes: number;
	/** Requests the page makes until it is usable, signed in, on Members. */
	requests: number;
	/** Medians, ms: navigation start → the sign-in field has the focus. */
	signInUsableMs: { cold: number; warm: number };
	/** Medians, ms: Sign in pressed → the Members table drawn. */
	membersUsableMs: { cold: number; warm: number };
}

/**
 * The console's weight (every file of its build, as sent and as gzip would send it) and how soon it
 * is usable in Debian's Chromium: the sign-in page, then Members with `members` rows after signing
 * in. Two contenders in interleaved rounds: a cold tab (a new browser context, nothing cached) and
 * a warm one (the same context reloaded: every file revalidated, answered 304).
 */
export async function benchConsole(options: {
	rounds: number;
	members: number;
}): Promise<ConsoleResult> {
	ensureChromium('The console benchmark');
	await buildConsole();
	const files = readdirSync(CONSOLE_BUILD, { recursive: true, withFileTypes: true }).filter(
		(entry) => entry.isFile() && !entry.name.startsWith('.'),
	);
	const contents = files.map((entry) => readFileSync(join(entry.parentPath, entry.name)));

	const dir = tempDir('console');
	const databasePath = join(dir, 'api.sqlite');
	const org = bootstrap(databasePath);
	const server = await spawnServer({ DATABASE_PATH: databasePath, RATE_LIMIT_REQUESTS: '100000' });
	const origin = new URL(server.url).origin;
	for (let index = 0; index < options.members; index++)
		await api(`${server.url}/orgs/${org.org.id}/members`, org.api_key, 'POST', {
			name: `Member ${index}`,
			email: `member${index}@bench.test`,
			role: 'trainer',
		});
	let browser: Browser | undefined;
	try {
		browser = await launchChromium();
		const warmContext = await browser.newContext();
		const warmPage = await warmContext.newPage();
		await load(warmPage, origin, org.api_key); // fills the warm tab's cache
		const samples = {
			cold: { signIn: [] as number[], members: [] as number[] },
			warm: { signIn: [] as number[], members: [] as number[] },
		};
		let requests = 0;
		for (let round = 0; round < options.rounds; round++) {
			const context = await browser.newContext();
			const coldPage = await context.newPage();
			let seen = 0;
			coldPage.on('request', () => seen++);
			const cold = await load(coldPage, origin, org.api_key);
			requests = seen;
			await context.close();
			samples.cold.signIn.push(cold.signInMs);
			samples.cold.members.push(cold.membersMs);
			await warmPage.evaluate(() => sessionStorage.clear());
			const warm = await load(warmPage, origin, org.api_key);
			samples.warm.signIn.push(warm.signInMs);
			samples.warm.members.push(warm.membersMs);
		}
		return {
			files: files.length,
			bytes: contents.reduce((sum, content) => sum + content.length, 0),
			gzipBytes: contents.reduce((sum, content) => sum + gzipSync(content).length, 0),
			requests,
			signInUsableMs: { cold: median(samples.cold.signIn), warm: median(samples.warm.signIn) },
			membersUsableMs: { cold: median(samples.cold.members), warm: median(samples.warm.members) },
		};
	} finally {
		await browser?.close();
		await server.stop();
		rmSync(dir, { recursive: true, force: true });
	}
}

/** Opens the console on Members, signs in; both times as the page's own clock measures them. */
async function load(page: Page, origin: string, key: string) {
	await page.goto('about:blank'); // a warm tab loads the console anew, from its cache
	await page.goto(`${origin}/console/#/members`);
	await page.waitForFunction(() => document.activeElement?.id === 'api-key', null, {
		polling: 'raf',
	});
	const signInMs = await page.evaluate(() => performance.now());
	await page.fill('#api-key', key);
	const pressedAt = await page.evaluate(() => {
		document.querySelector<HTMLButtonElement>('form button[type=submit]')!.click();
		return performance.now();
	});
	await page.waitForFunction(() => document.querySelector('main tbody tr') !== null, null, {
		polling: 'raf',
	});
	const drawnAt = await page.evaluate(() => performance.now());
	return { signInMs: Math.round(signInMs), membersMs: Math.round(drawnAt - pressedAt) };
}
