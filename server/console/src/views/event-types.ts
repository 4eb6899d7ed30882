import { h } from '../dom.ts';
import { randomId } from '../random-id.ts';
import type { EventType, EventTypeInfo } from '../types.ts';
import type { ViewContext } from './context.ts';

// Event types as a person picks them: each with what it means, in text that a keyboard, touch or
// screen-reader user reaches as well as a mouse (not a tooltip).

/** The event types, each with what it means, as the API lists them. */
export function eventTypes(context: ViewContext): Promise<EventTypeInfo[]> {
	return context.api.get('/event-types');
}

/**
 * A checkbox per event type, each with its description beside it and tied to it
 * (`aria-describedby`); those of `checked` ticked.
 */
export function eventTypeChecks(types: EventTypeInfo[], checked: readonly EventType[] = []) {
	return h(
		'div',
		{ class: 'checks' },
		...types.map(({ type, description }) => {
			const hintId = `type-${randomId()}`;
			return h(
				'label',
				{ class: 'check' },
				h('input', {
					type: 'checkbox',
					name: 'event_types',
					value: type,
					checked: checked.includes(type),
					'aria-describedby': hintId,
				}),
				' ',
				type,
				h('span', { class: 'hint block', id: hintId }, description),
			);
		}),
	);
}

/**
 * A select of event types (`first`: choices before them, such as "Any") with the chosen type's
 * description under it, said again to a screen reader as the choice changes.
 */
export function eventTypeSelect(
	name: string,
	types: EventTypeInfo[],
	first: Array<[string, string]> = [],
): { select: HTMLSelectElement; described: HTMLElement } {
	const descriptionId = `type-${randomId()}`;
	const select = h(
		'select',
		{ name, 'aria-describedby': descriptionId },
		...first.map(([value, text]) => h('option', { value }, text)),
		...types.map(({ type }) => h('option', { value: type }, type)),
	);
	const description = h('span', { class: 'hint block', id: descriptionId, 'aria-live': 'polite' });
	const describe = () => {
		description.textContent = types.find((info) => info.type === select.value)?.description ?? '';
	};
	select.addEventListener('change', describe);
	describe();
	return { select, described: description };
}
