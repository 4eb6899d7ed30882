import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
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
import { ConsolePage, DESKTOP } from './console-page';

/** What a console suite's tests share: the real API server, its first organization, a receiver and Chromium. */
export interface ConsoleSuite {
	server: ServerProcess;
	/** The API server's database, for organizations made as the bootstrap command makes them. */
	databasePath: string;
	/** Where the console is served from. */
	origin: string;
	org: Bootstrapped;
	admin: ApiClient;
	receiver: Receiver;
	/** A tab in a fresh tab; closed after the test, and checked to have thrown nothing. */
	openConsole(viewport?: typeof DESKTOP): Promise<ConsolePage>;
	membersPath(): string;
	memberNamed(name: string): Promise<{ user_id: string; name: string; email: string } | undefined>;
	addMember(
		name: string,
		email: string,
		role?: string,
	): Promise<{ user_id: string; name: string; email: string }>;
}

/**
 * Registers the set-up of a console suite (call it inside its describe): the console built as
 * `npm start` builds it, the API server with retries a second and then an hour apart, Chromium.
 * After each test every tab it opened is closed, and must have thrown nothing nor asked another origin.
 */
export function consoleSuite(): ConsoleSuite {
	let dir: string;
	let browser: Browser;
	const opened: ConsolePage[] = [];
	const suite = {} as ConsoleSuite;

	beforeAll(async () => {
		ensureChromium('The console tests');
		execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-console.mts')], {
			stdio: 'inherit',
		});
		dir = tempRoot();
		suite.databasePath = join(dir, 'api.sqlite');
		suite.org = bootstrapOrg(suite.databasePath, 'Console Training', 'ada@console.test');
		suite.server = await spawnServer({
			DATABASE_PATH: suite.databasePath,
			WEBHOOK_ALLOW_INSECURE_URLS: 'true',
			// A first retry a second after the first attempt (a failed and a successful attempt in one
			// test), then one an hour later (a retry still to come, to read on the page).
			WEBHOOK_RETRY_SCHEDULE_S: '1,3600',
		});
		suite.origin = new URL(suite.server.url).origin;
		suite.admin = new ApiClient(suite.server.url, suite.org.api_key);
		suite.receiver = await Receiver.start();
		browser = await launchChromium();
	});

	afterAll(async () => {
		await browser?.close();
		await suite.receiver?.stop();
		await suite.server?.stop();
		rmSync(dir, { recursive: true, force: true });
	});

	afterEach(async () => {
		for (const page of opened.splice(0)) {
			const errors = page.pageErrors;
			const elsewhere = page.requested.filter((url) => !url.startsWith(`${suite.origin}/`));
			await page.close();
			expect(errors).toEqual([]);
			expect(elsewhere).toEqual([]);
		}
	});

	suite.openConsole = async (viewport = DESKTOP) => {
		const page = await ConsolePage.open(browser, suite.origin, viewport);
		opened.push(page);
		return page;
	};
	suite.membersPath = () => `/orgs/${suite.org.org.id}/members`;
	suite.memberNamed = async (name) => {
		const members = (
			await suite.admin.getAll<{ user_id: string; name: string; email: string }>(
				suite.membersPath(),
			)
		).items;
		return members.find((member) => member.name === name);
	};
	suite.addMember = async (name, email, role = 'trainer') => {
		const response = await suite.admin.post(suite.membersPath(), { name, email, role });
		expect(response.status).toBe(201);
		return response.body as { user_id: string; name: string; email: string };
	};
	return suite;
}
