import type { INodePropertyOptions } from 'n8n-workflow';
import type { EventType } from '../shared/api';
import { EVENT_TYPE_OPTIONS } from '../shared/events';

const FIRST: Array<INodePropertyOptions & { value: EventType }> = [
	{
		name: 'Member Removed',
		value: 'member.removed',
		description: 'A member was removed from the organization; all their API keys were revoked',
	},
	{
		name: 'Organization Closed',
		value: 'org.closed',
		description: 'The organization was closed; delivered although its API keys stop working',
	},
];

/**
 * Every event type, with the two events operators automate on placed first on purpose (a UX choice,
 * hence a constant rather than an alphabetized inline list); the rest follow alphabetized.
 */
export const TRIGGER_EVENT_OPTIONS: INodePropertyOptions[] = [
	...FIRST,
	...EVENT_TYPE_OPTIONS.filter((option) => !FIRST.some((first) => first.value === option.value)),
];
