import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { toRfc3339 } from './time';

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
