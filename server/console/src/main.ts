// The console: sign in with an API key, then one page per part of the API, chosen by the address's
// hash (`#/members`). The key lives in this tab's session storage only; it never goes into an
// address, a cookie or a log, and signing out forgets it.
import { Api, ApiError } from './api.ts';
import { h, replaceChildren } from './dom.ts';
import { forgetKey, readKey, storeKey } from './key-store.ts';
import { ROUTES, match } from './routes.ts';
import type { ViewContext } from './views/context.ts';
import { announce, errorBox } from './ui.ts';
import type { Me } from './types.ts';

const app = document.getElementById('app') as HTMLElement;

interface Signed {
	api: Api;
	me: Me;
	main: HTMLElement;
	nav: HTMLElement;
}

let signed: Signed | null = null;
/** Stops what the current page runs in the background (live updates). */
let leavePage: Array<() => void> = [];
/** Increases with every page shown, so an answer for a page left meanwhile is dropped. */
let pageNumber = 0;

/** Forgets the key. A refused key keeps the page, to come back to it; signing out leaves it. */
function signOut(reason?: ApiError): void {
	forgetKey();
	signed = null;
	leave();
	if (!reason) history.replaceState(null, '', '#/');
	showSignIn(reason);
	announce(reason ? 'Signed out: the API refused the key.' : 'Signed out.');
}

function apiFor(key: string): Api {
	return new Api(key, (error) => signOut(error));
}

function showSignIn(refusal?: ApiError): void {
	document.title = 'Sign in · Training Lab console';
	const slot = h('div', {});
	if (refusal) replaceChildren(slot, errorBox(refusal));
	const keyInput = h('input', {
		type: 'password',
		id: 'api-key',
		name: 'key',
		required: true,
		autocomplete: 'off',
		spellcheck: 'false',
		'aria-describedby': 'api-key-hint',
	});
	const submit = h('button', { type: 'submit' }, 'Sign in');
	const form = h(
		'form',
		{ class: 'card sign-in', 'aria-labelledby': 'sign-in-title' },
		h('h1', { id: 'sign-in-title', tabindex: '-1' }, 'Training Lab console'),
		h('p', {}, 'Sign in with an API key of your organization. You act with its role.'),
		h(
			'p',
			{ class: 'field' },
			h('label', { for: 'api-key' }, 'API key'),
			keyInput,
			h(
				'span',
				{ class: 'hint', id: 'api-key-hint' },
				'Starts with tlk_. Kept in this tab only, until you sign out or close it.',
			),
		),
		slot,
		h('p', {}, submit),
	);
	form.addEventListener('submit', async (event) => {
		event.preventDefault();
		const key = keyInput.value.trim();
		submit.setAttribute('aria-busy', 'true');
		replaceChildren(slot);
		try {
			// A refused key here is an answer to show on this form, not a reason to sign out.
			const me = await new Api(key, () => {}).get('/me');
			storeKey(key);
			keyInput.value = '';
			startSigned(key, me);
		} catch (error) {
			replaceChildren(slot, errorBox(error));
			keyInput.focus();
		} finally {
			submit.removeAttribute('aria-busy');
		}
	});
	replaceChildren(app, h('main', { id: 'main', class: 'signed-out' }, form));
	keyInput.focus();
}

function startSigned(key: string, me: Me): void {
	const main = h('main', { id: 'main', tabindex: '-1' });
	const nav = h('nav', { 'aria-label': 'Console sections' });
	signed = { api: apiFor(key), me, main, nav };
	const skip = h('a', { class: 'skip', href: '#main' }, 'Skip to content');
	skip.addEventListener('click', (event) => {
		event.preventDefault();
		main.focus();
	});
	const signOutButton = h('button', { type: 'button', class: 'quiet' }, 'Sign out');
	signOutButton.addEventListener('click', () => signOut());
	replaceChildren(
		app,
		skip,
		h(
			'header',
			{ class: 'topbar' },
			h('span', { class: 'brand' }, 'Training Lab'),
			h(
				'span',
				{ class: 'who' },
				h('span', { class: 'org' }, me.org.name),
				' · ',
				me.user.name,
				' · ',
				h('span', { class: `role role-${me.role}` }, me.role),
			),
			signOutButton,
		),
		h('div', { class: 'layout' }, nav, main),
	);
	showPage();
}

function leave(): void {
	for (const stop of leavePage) stop();
	leavePage = [];
}

async function showPage(): Promise<void> {
	if (!signed) return;
	leave();
	const thisPage = ++pageNumber;
	const path = location.hash.replace(/^#/, '') || '/';
	const found = match(path);
	drawNav(signed.nav, found?.route.section ?? '');
	const { main } = signed;
	if (!found) {
		document.title = 'Not found · Training Lab console';
		replaceChildren(main, h('h1', { tabindex: '-1' }, 'No such page'), h('p', {}, path));
		focusHeading(main);
		return;
	}
	const context: ViewContext = {
		api: signed.api,
		me: signed.me,
		params: found.params,
		isCurrent: () => thisPage === pageNumber,
		every(ms, task) {
			if (thisPage !== pageNumber) return; // left while loading: nothing to keep up to date
			const timer = setInterval(() => {
				if (!document.hidden) task();
			}, ms);
			leavePage.push(() => clearInterval(timer));
		},
		setTitle(title) {
			if (thisPage === pageNumber) document.title = `${title} · Training Lab console`;
		},
	};
	context.setTitle(found.route.title); // a view may name its page more precisely
	main.setAttribute('aria-busy', 'true');
	replaceChildren(main, h('p', { class: 'loading' }, 'Loading…'));
	let content: HTMLElement;
	try {
		content = await found.route.view(context);
	} catch (error) {
		content = h('div', {}, h('h1', { tabindex: '-1' }, found.route.title), errorBox(error));
	}
	if (!context.isCurrent() || !signed) return;
	main.removeAttribute('aria-busy');
	replaceChildren(main, content);
	focusHeading(main);
}

function focusHeading(main: HTMLElement): void {
	const heading = main.querySelector('h1');
	if (heading) {
		heading.setAttribute('tabindex', '-1');
		heading.focus();
	}
}

function drawNav(nav: HTMLElement, section: string): void {
	const items = ROUTES.filter((route) => route.nav).map((route) =>
		h(
			'li',
			{},
			h(
				'a',
				{ href: `#${route.path}`, 'aria-current': route.section === section ? 'page' : null },
				route.title,
			),
		),
	);
	replaceChildren(nav, h('ul', {}, ...items));
}

window.addEventListener('hashchange', () => void showPage());

async function start(): Promise<void> {
	const key = readKey();
	if (!key) return showSignIn();
	try {
		startSigned(key, await apiFor(key).get('/me'));
	} catch (error) {
		if (!(error instanceof ApiError && error.status === 401)) {
			replaceChildren(app, h('main', { id: 'main' }, errorBox(error)));
		}
	}
}

void start();
