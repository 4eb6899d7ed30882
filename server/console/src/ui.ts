// The console's shared pieces: links, badges, how an answer of the API is announced, confirmations, a secret shown
// once, and forms whose submission is one intent however often it is sent.
import { ApiError } from './api.ts';
import type { ViewContext } from './views/context.ts';
import { h, replaceChildren, type Child } from './dom.ts';
import { randomId } from './random-id.ts';

const ANNOUNCEMENT_SHOWN_MS = 8_000;
let hideAnnouncement: ReturnType<typeof setTimeout> | undefined;

/** Says `text` to everyone: on screen for a few seconds, and to screen readers (a polite live region). */
export function announce(text: string): void {
	const status = document.getElementById('status');
	if (!status) return;
	// Emptied first so that the same message twice is announced twice.
	status.textContent = '';
	clearTimeout(hideAnnouncement);
	requestAnimationFrame(() => (status.textContent = text));
	hideAnnouncement = setTimeout(() => (status.textContent = ''), ANNOUNCEMENT_SHOWN_MS);
}

/** The API's refusal as the API put it: message, code and status, and which fields were wrong. */
export function errorBox(error: unknown): HTMLElement {
	const apiError =
		error instanceof ApiError
			? error
			: new ApiError(0, 'console', error instanceof Error ? error.message : String(error));
	const retry =
		apiError.retryAfterSeconds === null ? null : ` Try again in ${apiError.retryAfterSeconds} s.`;
	return h(
		'div',
		{ class: 'error', role: 'alert' },
		h('p', {}, h('strong', {}, apiError.message), retry),
		apiError.details.length > 0
			? h(
					'ul',
					{},
					...apiError.details.map((detail) =>
						h('li', {}, h('code', {}, detail.path || '(body)'), ': ', detail.message),
					),
				)
			: null,
		h(
			'p',
			{ class: 'error-code' },
			apiError.status > 0 ? `${apiError.status} · ${apiError.code}` : apiError.code,
		),
	);
}

/** Shows `error` in `slot` (an element kept for the answers of one form or action). */
export function showError(slot: Element, error: unknown): void {
	replaceChildren(slot, errorBox(error));
}

/**
 * A modal confirmation (the browser's own dialog element: focus stays inside, Escape cancels).
 * With `typed`, the confirm button works only once that exact text is typed.
 */
export function confirmAction(options: {
	title: string;
	body: Child[];
	confirmLabel: string;
	typed?: string;
}): Promise<boolean> {
	return new Promise((resolve) => {
		const confirmButton = h('button', { type: 'submit', class: 'danger' }, options.confirmLabel);
		const cancelButton = h('button', { type: 'button' }, 'Cancel');
		const titleId = `dialog-title-${randomId()}`;
		let typedInput: HTMLInputElement | null = null;
		if (options.typed !== undefined) {
			const expected = options.typed;
			typedInput = h('input', {
				type: 'text',
				id: `${titleId}-typed`,
				autocomplete: 'off',
				spellcheck: 'false',
			});
			confirmButton.disabled = true;
			typedInput.addEventListener('input', () => {
				confirmButton.disabled = typedInput?.value !== expected;
			});
		}
		const form = h(
			'form',
			{ method: 'dialog' },
			h('h2', { id: titleId }, options.title),
			...options.body,
			typedInput && options.typed !== undefined
				? h(
						'p',
						{},
						h(
							'label',
							{ for: typedInput.id },
							'Type ',
							h('code', {}, options.typed),
							' to confirm',
						),
						typedInput,
					)
				: null,
			h('div', { class: 'actions' }, cancelButton, confirmButton),
		);
		const dialog = h('dialog', { 'aria-labelledby': titleId }, form);
		let confirmed = false;
		form.addEventListener('submit', (event) => {
			event.preventDefault();
			if (confirmButton.disabled) return;
			confirmed = true;
			dialog.close();
		});
		cancelButton.addEventListener('click', () => dialog.close());
		dialog.addEventListener('close', () => {
			dialog.remove();
			resolve(confirmed);
		});
		document.body.append(dialog);
		dialog.showModal();
		(typedInput ?? cancelButton).focus();
	});
}

/**
 * A secret the API returns once (a new key, a webhook's signing secret, a join code): shown with a
 * copy button and a warning that it will not be shown again.
 */
export function secretOnce(label: string, secret: string, note: string): HTMLElement {
	const copied = h('span', { class: 'copied', role: 'status' });
	const value = h('code', { class: 'secret', tabindex: '0' }, secret);
	const copy = h('button', { type: 'button', 'aria-label': `Copy ${label}` }, 'Copy');
	copy.addEventListener('click', async () => {
		try {
			await navigator.clipboard.writeText(secret);
			copied.textContent = 'Copied.';
		} catch {
			getSelection()?.selectAllChildren(value);
			copied.textContent = 'Selected: press Ctrl+C to copy.';
		}
	});
	return h(
		'section',
		{ class: 'secret-once', 'aria-label': `New ${label.toLowerCase()}` },
		h('h3', {}, label),
		h('p', {}, value),
		h('p', {}, copy, ' ', copied),
		h('p', { class: 'hint' }, note),
	);
}

/**
 * A form that sends one request, in a card with its title and submit button. The button is busy
 * while it runs; the API's error, or what `send` returns, appears under it; the form is emptied
 * after a success. The Idempotency-Key stays the same until the form's content changes, so a double
 * submission or a resubmission after a lost answer acts once.
 */
export function formCard(options: {
	title: string;
	submit: string;
	fields: Child[];
	send: (values: FormData, idempotencyKey: string) => Promise<Child | void>;
}): HTMLFormElement {
	const titleId = `form-${randomId()}`;
	const button = h('button', { type: 'submit' }, options.submit);
	const feedback = h('div', { class: 'feedback' });
	const form = h(
		'form',
		{ class: 'card', 'aria-labelledby': titleId },
		h('h2', { id: titleId }, options.title),
		...options.fields,
		h('p', {}, button),
		feedback,
	);
	let idempotencyKey = randomId();
	form.addEventListener('input', () => (idempotencyKey = randomId()));
	form.addEventListener('submit', async (event) => {
		event.preventDefault();
		if (button.getAttribute('aria-busy') === 'true') return;
		button.setAttribute('aria-busy', 'true');
		replaceChildren(feedback);
		try {
			const shown = await options.send(new FormData(form), idempotencyKey);
			idempotencyKey = randomId();
			form.reset();
			if (shown) replaceChildren(feedback, shown);
		} catch (error) {
			showError(feedback, error);
		} finally {
			button.removeAttribute('aria-busy');
		}
	});
	return form;
}

/** Runs an action started by a button: busy while it runs, the API's error in `slot`. */
export async function act(
	button: HTMLButtonElement,
	slot: Element,
	action: () => Promise<void>,
): Promise<void> {
	if (button.getAttribute('aria-busy') === 'true') return;
	button.setAttribute('aria-busy', 'true');
	replaceChildren(slot);
	try {
		await action();
	} catch (error) {
		showError(slot, error);
	} finally {
		button.removeAttribute('aria-busy');
	}
}

/** The role a new member or key gets: trainer unless chosen otherwise. */
export function roleField(): HTMLElement {
	return field(
		'Role',
		h(
			'select',
			{ name: 'role' },
			h('option', { value: 'trainer' }, 'trainer'),
			h('option', { value: 'admin' }, 'admin'),
		),
	);
}

/** A labelled form field. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
	const id = control.id || `field-${randomId()}`;
	control.id = id;
	const hintId = hint ? `${id}-hint` : undefined;
	// After what already describes the control (a choice's own description, say).
	if (hintId)
		control.setAttribute(
			'aria-describedby',
			[control.getAttribute('aria-describedby'), hintId].filter(Boolean).join(' '),
		);
	return h(
		'p',
		{ class: 'field' },
		h('label', { for: id }, label),
		control,
		hint ? h('span', { class: 'hint', id: hintId }, hint) : null,
	);
}

/**
 * A table of everything a list endpoint returns (every page), drawn again by `refresh()` after each
 * change, unless the person has left the page meanwhile.
 */
export function listTable<T>(
	context: ViewContext,
	load: () => Promise<T[]>,
	caption: string,
	headings: string[],
	toRow: (item: T) => HTMLTableRowElement,
): { element: HTMLElement; refresh(): Promise<void> } {
	const element = h('div', {});
	return {
		element,
		async refresh() {
			const items = await load();
			if (context.isCurrent()) replaceChildren(element, table(caption, headings, items.map(toRow)));
		},
	};
}

/**
 * A table with a caption for screen readers; on a narrow screen CSS stacks each row, every cell
 * under its column's name (`data-label`), so nothing needs scrolling sideways.
 */
export function table(caption: string, headings: string[], rows: HTMLTableRowElement[]): Child {
	if (rows.length === 0) return h('p', { class: 'empty' }, `No ${caption.toLowerCase()} yet.`);
	for (const tableRow of rows)
		[...tableRow.cells].forEach((cell, index) => cell.setAttribute('data-label', headings[index]));
	return h(
		'table',
		{ class: 'stacking' },
		h('caption', { class: 'visually-hidden' }, caption),
		h('thead', {}, h('tr', {}, ...headings.map((text) => h('th', { scope: 'col' }, text)))),
		h('tbody', {}, ...rows),
	);
}

export function row(...cells: Child[]): HTMLTableRowElement {
	return h('tr', {}, ...cells.map((cell) => h('td', {}, cell)));
}

/** A link inside the console; `path` is a console route such as `/sessions/…`. */
export function link(path: string, ...children: Child[]): HTMLAnchorElement {
	return h('a', { href: `#${path}` }, ...children);
}

/** A small pill with text, its meaning never carried by colour alone. */
export function badge(
	text: string,
	tone: 'good' | 'bad' | 'wait' | 'plain' = 'plain',
): HTMLElement {
	return h('span', { class: `badge badge-${tone}` }, text);
}
