import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { apiRequest } from '../../shared/transport';
import { idempotencyKeyFor } from './intent';

/** Additional Fields → Idempotency Key, offered by every create. */
const idempotencyKeyField: INodeProperties = {
	displayName: 'Idempotency Key',
	name: 'idempotencyKey',
	type: 'string',
	default: '',
	description:
		'Identifies what this item creates across executions (for example an ID from your source list): a second create with the same key within 24 hours returns the first result instead of a duplicate. By default a key is derived from the Training Lab event the item comes from (or else the execution), the node, the item and its fields, so that a second run of the same event creates nothing twice.',
};

/**
 * POSTs a create, or an action such as a resend, with its Idempotency-Key, so that one intent acts
 * once however often n8n runs it: the item's Additional Fields → Idempotency Key, or one derived from
 * the run, the item and the request (path and body).
 */
export async function postOnce(
	this: IExecuteFunctions,
	itemIndex: number,
	path: string,
	body?: IDataObject,
): Promise<IDataObject> {
	const given = this.getNodeParameter('additionalFields.idempotencyKey', itemIndex, '') as string;
	const idempotencyKey = given || idempotencyKeyFor(this, itemIndex, { path, ...body });
	return (await apiRequest.call(this, 'POST', path, { body, idempotencyKey, itemIndex })).body;
}

/** The Additional Fields collection of a create: `fields` and the Idempotency Key, by name. */
export function additionalFields(...fields: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [...fields, idempotencyKeyField].sort((a, b) =>
			a.displayName.localeCompare(b.displayName),
		),
	};
}
