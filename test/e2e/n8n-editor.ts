import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { OWNER } from '../../tooling/n8n/processes';

/**
 * n8n's editor in a tab of its own, driven as a person builds a workflow: signed in as the owner,
 * a workflow opened, *Execute workflow* pressed, a node's output read. n8n marks its parts with
 * `data-test-id`, which its own end-to-end tests use too.
 */
export class N8nEditor {
	readonly page: Page;
	readonly #context: BrowserContext;
	readonly #url: string;

	private constructor(context: BrowserContext, page: Page, url: string) {
		this.#context = context;
		this.page = page;
		this.#url = url;
	}

	static async signIn(browser: Browser, url: string): Promise<N8nEditor> {
		const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
		const page = await context.newPage();
		await page.goto(`${url}/signin`);
		await page.getByLabel(/email/i).fill(OWNER.email);
		await page.getByLabel(/password/i).fill(OWNER.password);
		await page.getByRole('button', { name: /sign in/i }).click();
		await page.waitForURL((address) => !address.pathname.startsWith('/signin'));
		return new N8nEditor(context, page, url);
	}

	#testId(id: string) {
		return this.page.locator(`[data-test-id="${id}"]`);
	}

	async openWorkflow(workflowId: string): Promise<void> {
		await this.page.goto(`${this.#url}/workflow/${workflowId}`);
		await this.#testId('execute-workflow-button').waitFor();
	}

	/** Presses *Execute workflow*: a trigger that waits for an event starts listening for one. */
	async executeWorkflow(): Promise<void> {
		await this.#testId('execute-workflow-button').click();
	}

	/** Waits until the node shows that it ran, then opens it: its output shows in `output`. */
	async openWhenRun(nodeName: string, timeoutMs: number): Promise<void> {
		const node = this.#testId('canvas-node').filter({ hasText: nodeName });
		await node
			.locator('[data-test-id="canvas-node-status-success"]')
			.waitFor({ timeout: timeoutMs });
		// The canvas's pane lies over its nodes for pointer events; n8n opens a node on a double click.
		await node.dblclick({ force: true });
	}

	/** The output panel of the open node. */
	get output(): Locator {
		return this.#testId('output-panel');
	}

	async close(): Promise<void> {
		await this.#context.close();
	}
}
