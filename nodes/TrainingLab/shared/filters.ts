import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { EVENT_TYPE_OPTIONS } from '../../shared/events';
import { toRfc3339 } from './time';

/**
 * A list's *Filters* collection: event types, since and until (`what` names the items, e.g.
 * "events", "deliveries of events"), and the list's own filters besides; alphabetized, as n8n shows
 * a collection's options.
 */
export function listFilters(what: string, more: INodeProperties[] = []): INodeProperties {
	const options: INodeProperties[] = [
		{
			displayName: 'Event Types',
			name: 'types',
			type: 'multiOptions',
			options: EVENT_TYPE_OPTIONS,
			default: [],
			description: `Only ${what} of these types`,
		},
		{
			displayName: 'Since',
			name: 'since',
			type: 'dateTime',
			default: '',
			description: `Only ${what} that occurred at or after this time`,
		},
		{
			displayName: 'Until',
			name: 'until',
			type: 'dateTime',
			default: '',
			description: `Only ${what} that occurred before this time`,
		},
		...more,
	];
	return {
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: options.sort((a, b) => a.displayName.localeCompare(b.displayName)),
	};
}

/**
 * The query of a list's *Filters* collection, as the API takes it: a list of values joined with
 * commas (`types`, `status`), `since` and `until` in the workflow's timezone, and *Test Events*
 * (include, only, exclude) as `test`.
 */
export function filterQuery(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const query: IDataObject = {};
	for (const [name, value] of Object.entries(filters)) {
		if (Array.isArray(value)) {
			if (value.length > 0) query[name] = value.join(',');
		} else if (name === 'since' || name === 'until') {
			if (value) query[name] = toRfc3339(String(value), this.getTimezone());
		} else if (name === 'test') {
			if (value !== 'include') query.test = String(value === 'only');
		}
	}
	return query;
}
