import type { IExecuteFunctions } from 'n8n-workflow';
import { locatorValue } from '../../shared/list';
import { apiPath } from '../../../shared/transport';

/** `/sessions/{id}` of the session chosen in the item's Session parameter. */
export function sessionPath(this: IExecuteFunctions, itemIndex: number, suffix = ''): string {
	return apiPath`/sessions/${locatorValue.call(this, 'session', itemIndex)}` + suffix;
}
