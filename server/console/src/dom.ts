// The only way the console builds a page: elements whose text is set as text. Nothing here (or
// anywhere in the console) parses HTML, so a value from the API such as `<img src=x onerror=…>` is
// shown as those characters. The Content-Security-Policy's Trusted Types rule makes any HTML parsing
// throw, should someone add it.

export type Child = Node | string | number | null | undefined | false;

type Attributes = Record<string, string | number | boolean | null | undefined | EventListener>;

/** `h('button', { type: 'button', onclick }, 'Remove ', name)`: an element with attributes, listeners and text. */
export function h<K extends keyof HTMLElementTagNameMap>(
	tag: K,
	attributes: Attributes = {},
	...children: Child[]
): HTMLElementTagNameMap[K] {
	const element = document.createElement(tag);
	for (const [name, value] of Object.entries(attributes)) {
		if (value === null || value === undefined || value === false) continue;
		if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
		else element.setAttribute(name, value === true ? '' : String(value));
	}
	append(element, ...children);
	return element;
}

export function append(parent: Node, ...children: Child[]): void {
	for (const child of children) {
		if (child === null || child === undefined || child === false) continue;
		parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
	}
}

export function replaceChildren(parent: Element, ...children: Child[]): void {
	parent.replaceChildren();
	append(parent, ...children);
}

/**
 * 128 random bits as hex: element ids and Idempotency-Keys. Not crypto.randomUUID, which a browser
 * offers only in a secure context, and the console may be opened over plain http on a LAN address.
 */
export function randomId(): string {
	return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) =>
		byte.toString(16).padStart(2, '0'),
	).join('');
}

/** A link inside the console; `path` is a console route such as `/sessions/…`. */
export function link(path: string, ...children: Child[]): HTMLAnchorElement {
	return h('a', { href: `#${path}` }, ...children);
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

/** A `<time>` with the local date and time, the exact UTC value as its datetime. */
export function time(iso: string | null | undefined, style: 'full' | 'time' = 'full'): Child {
	if (!iso) return '—';
	const date = new Date(iso);
	if (Number.isNaN(date.getTime())) return iso;
	return h(
		'time',
		{ datetime: iso, title: iso },
		(style === 'time' ? timeOnly : dateTime).format(date),
	);
}

/** "in 4 min", "12 s ago": how far `iso` is from now. */
export function relative(iso: string, now = Date.now()): string {
	const seconds = Math.round((Date.parse(iso) - now) / 1000);
	const magnitude = Math.abs(seconds);
	const minutes = Math.round(magnitude / 60);
	const hours = Math.round(magnitude / 3600);
	// Each unit until the next one's rounding takes over: 59 min, then 1 h (never "60 min").
	const amount =
		magnitude < 60
			? `${magnitude} s`
			: minutes < 60
				? `${minutes} min`
				: hours < 24
					? `${hours} h`
					: `${Math.round(magnitude / 86_400)} d`;
	return seconds >= 0 ? `in ${amount}` : `${amount} ago`;
}

/** A small pill with text, its meaning never carried by colour alone. */
export function badge(
	text: string,
	tone: 'good' | 'bad' | 'wait' | 'plain' = 'plain',
): HTMLElement {
	return h('span', { class: `badge badge-${tone}` }, text);
}
