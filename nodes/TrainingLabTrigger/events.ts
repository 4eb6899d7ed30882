import type { INodePropertyOptions } from 'n8n-workflow';
import type { EventType } from '../shared/api';
import { EVENT_TYPE_OPTIONS } from '../shared/events';

const FIRST: EventType[] = ['member.removed', 'org.closed'];

/**
 * Every event type, with the two events operators automate on placed first on purpose (a UX choice,
 * hence a constant rather than an alphabetized inline list); the rest follow alphabetized.
 */
export const TRIGGER_EVENT_OPTIONS: INodePropertyOptions[] = [
	...FIRST.map((type) => EVENT_TYPE_OPTIONS.find((option) => option.value === type)!),
	...EVENT_TYPE_OPTIONS.filter((option) => !FIRST.includes(option.value as EventType)),
];
