import type { Api } from '../api.ts';
import type { Me } from '../types.ts';

/** What a page gets: the API as the signed-in key, who that is, and the page's lifetime. */
export interface ViewContext {
	api: Api;
	me: Me;
	/** The `:name` parts of the route, e.g. `{ id }` for `/sessions/:id`. */
	params: Record<string, string>;
	/** False once the person went to another page: work for this one should stop. */
	isCurrent(): boolean;
	/** Runs `task` every `ms` while this page is shown and the tab is visible (live updates). */
	every(ms: number, task: () => void): void;
	setTitle(title: string): void;
}
