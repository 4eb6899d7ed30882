import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import { postOnce } from '../../shared/create';
import { toRfc3339 } from '../../shared/time';
import { webhookIdField, webhookPath } from './webhookPath';
import type { ExecutionContext, OperationOption } from '../../shared/types';
import type { Schemas } from '../../../shared/api';

export const option: OperationOption = {
	name: 'Rotate Secret',
	value: 'rotateSecret',
	action: 'Rotate the signing secret of a webhook endpoint',
	description:
		'Replace the signing secret; deliveries carry both signatures until the old one expires',
};

/** What a model reads of this operation when the node is an AI tool. */
export const toolDescription =
	"Replaces the signing secret of a webhook endpoint, given its id (a UUID from listing webhook endpoints), and returns the new secret (shown this once). Until the old secret expires (24 hours by default; 'now' when it leaked) every delivery is signed with both. Needs an admin API key.";

export const description: INodeProperties[] = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['rotateSecret'] } },
	[
		webhookIdField,
		{
			displayName: 'Old Secret',
			name: 'oldSecret',
			type: 'options',
			options: [
				{
					name: 'Keep for 24 Hours',
					value: 'day',
					description:
						'Deliveries are signed with both secrets for a day, while receivers change over',
				},
				{
					name: 'End Now',
					value: 'now',
					description: 'It leaked: deliveries are signed with the new secret only, from now on',
				},
				{
					name: 'Keep Until',
					value: 'until',
					description: 'Deliveries are signed with both secrets until a time, at most 7 days ahead',
				},
			],
			default: 'day',
			description: 'How long deliveries go on carrying a signature made with the old secret',
		},
		{
			displayName: 'Old Secret Expires At',
			name: 'oldSecretExpiresAt',
			type: 'dateTime',
			default: '',
			required: true,
			displayOptions: { show: { oldSecret: ['until'] } },
			description: 'Until when deliveries are signed with the old secret too',
		},
	],
);

/**
 * A time that is not in the future, which ends the old secret at once; a fixed one, so that a retry
 * of the item sends the same request (and idempotency key) as the first try.
 */
const AT_ONCE = '1970-01-01T00:00:00Z';

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
): Promise<IDataObject> {
	const path = await webhookPath.call(this, itemIndex, context, '/rotate-secret');
	const body: Schemas['WebhookRotateSecretRequest'] = {};
	const oldSecret = this.getNodeParameter('oldSecret', itemIndex) as 'day' | 'now' | 'until';
	if (oldSecret === 'now') body.old_secret_expires_at = AT_ONCE;
	if (oldSecret === 'until')
		body.old_secret_expires_at = toRfc3339(
			String(this.getNodeParameter('oldSecretExpiresAt', itemIndex)),
			this.getTimezone(),
		);
	const rotated = await postOnce.call(this, itemIndex, path, body);
	if (typeof rotated.secret !== 'string')
		// The API shows a secret once: this is the replay of an earlier try whose answer was lost.
		throw new NodeOperationError(
			this.getNode(),
			'The secret was replaced by an earlier try of this item whose answer was lost, and the API shows a new secret only once. Rotate it again to get one.',
			{ itemIndex },
		);
	return rotated;
}
