import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';

/** axe-core's own script, run inside the page the way @axe-core/playwright runs it. */
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export interface AxeViolation {
	id: string;
	impact: string | null;
	help: string;
	nodes: Array<{ target: string[] }>;
}

/**
 * The console in a tab of its own (a fresh browser context: no storage shared with other tests),
 * driven as a person does: by labels, roles and visible text.
 */
export class ConsolePage {
	readonly page: Page;
	readonly context: BrowserContext;
	readonly origin: string;
	/** Every URL the page requested, to check that nothing leaves the machine's own server. */
	readonly requested: string[] = [];
	/** Errors thrown in the page: none is expected. */
	readonly pageErrors: string[] = [];

	private constructor(context: BrowserContext, page: Page, origin: string) {
		this.context = context;
		this.page = page;
		this.origin = origin;
		page.on('request', (request) => this.requested.push(request.url()));
		page.on('pageerror', (error) => this.pageErrors.push(error.message));
	}

	static async open(browser: Browser, origin: string, viewport = DESKTOP): Promise<ConsolePage> {
		const context = await browser.newContext({ viewport });
		// As a person's browser allows it when they press a Copy button.
		await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
		const page = await context.newPage();
		const tab = new ConsolePage(context, page, origin);
		await page.goto(`${origin}/console/`);
		return tab;
	}

	async signIn(key: string): Promise<void> {
		await this.page.getByLabel('API key').fill(key);
		await this.page.getByRole('button', { name: 'Sign in' }).click();
	}

	/** Signs in and waits for the overview. */
	async signedIn(key: string): Promise<void> {
		await this.signIn(key);
		await this.heading('Overview').waitFor();
	}

	heading(name: string) {
		return this.page.getByRole('heading', { level: 1, name, exact: true });
	}

	/** Follows the navigation link to a section and waits for its heading. */
	async goTo(section: string, heading = section): Promise<void> {
		await this.page
			.getByRole('navigation', { name: 'Console sections' })
			.getByRole('link', { name: section, exact: true })
			.click();
		await this.heading(heading).waitFor();
	}

	/** The alert the console shows for a refusal of the API. */
	alert() {
		return this.page.getByRole('alert');
	}

	/** Presses Tab until the focused element's accessible name is `name`; fails after `limit` presses. */
	async tabTo(name: string, limit = 80): Promise<void> {
		for (let presses = 0; presses < limit; presses++) {
			await this.page.keyboard.press('Tab');
			const focused = await this.page.evaluate(() => {
				const element = document.activeElement as HTMLElement | null;
				return element?.getAttribute('aria-label') ?? element?.textContent?.trim() ?? '';
			});
			if (focused === name) return;
		}
		throw new Error(`Tab never reached "${name}" in ${limit} presses`);
	}

	/** axe-core's serious and critical violations on the page as it is now. */
	async accessibilityViolations(): Promise<AxeViolation[]> {
		await this.page.evaluate(AXE_SOURCE);
		const violations = await this.page.evaluate(async () => {
			const axe = (window as unknown as { axe: { run: () => Promise<{ violations: unknown[] }> } })
				.axe;
			return (await axe.run()).violations as AxeViolation[];
		});
		return violations
			.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
			.map(({ id, impact, help, nodes }) => ({
				id,
				impact,
				help,
				nodes: nodes.map((node) => ({ target: node.target })),
			}));
	}

	async storage() {
		return this.page.evaluate(() => ({
			session: Object.fromEntries(Object.entries(sessionStorage)),
			local: Object.fromEntries(Object.entries(localStorage)),
			cookie: document.cookie,
		}));
	}

	async close(): Promise<void> {
		await this.context.close();
	}
}
