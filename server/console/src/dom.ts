// The only way the console builds a page: elements whose text is set as text. Nothing here (or
// anywhere in the console) parses HTML, so a value from the API such as `<img src=x onerror=…>` is
// shown as those characters. The Content-Security-Policy's Trusted Types rule makes any HTML parsing
// throw, should someone add it.

export type Child = Node | string | number | null | undefined | false;

/** Attributes as set on the element; `false`, null and undefined leave one out, `true` sets it empty. */
type Attributes = Record<string, string | number | boolean | null | undefined>;

/**
 * `h('button', { type: 'button' }, 'Remove ', name)`: an element with attributes and children.
 * Listeners are added with addEventListener where the element is used.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
	tag: K,
	attributes: Attributes = {},
	...children: Child[]
): HTMLElementTagNameMap[K] {
	const element = document.createElement(tag);
	for (const [name, value] of Object.entries(attributes)) {
		if (value === null || value === undefined || value === false) continue;
		element.setAttribute(name, value === true ? '' : String(value));
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

const SVG = 'http://www.w3.org/2000/svg';

/** `svg('rect', { x: 0, … })`: an SVG element, as `h` makes HTML ones (for the health charts). */
export function svg(
	tag: 'svg' | 'g' | 'rect' | 'line' | 'polyline' | 'circle',
	attributes: Attributes = {},
	...children: Child[]
): SVGElement {
	const element = document.createElementNS(SVG, tag);
	for (const [name, value] of Object.entries(attributes)) {
		if (value === null || value === undefined || value === false) continue;
		element.setAttribute(name, value === true ? '' : String(value));
	}
	append(element, ...children);
	return element;
}
