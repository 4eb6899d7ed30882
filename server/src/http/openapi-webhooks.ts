import type { z } from 'zod';
import {
	DELIVERY_SCHEMAS,
	EVENT_CATALOGUE,
	EVENT_SCHEMAS,
	EVENT_TYPES,
	eventSchemaName,
} from '../schemas/events.ts';
import { RECEIPT_HEADER } from '../outbox/sender.ts';

type JsonObject = Record<string, unknown>;

/**
 * The schemas of each event type, named by type: `MemberRemovedData` (its `data`),
 * `MemberRemovedEvent` (as the activity log lists it), `MemberRemovedDelivery` (a webhook's body).
 */
export function eventComponents(): Record<string, z.ZodType> {
	return Object.fromEntries(
		EVENT_TYPES.flatMap((type) => {
			const name = eventSchemaName(type);
			return [
				[`${name}Data`, EVENT_CATALOGUE[type].data],
				[`${name}Event`, EVENT_SCHEMAS[type]],
				[`${name}Delivery`, DELIVERY_SCHEMAS[type]],
			];
		}),
	);
}

/** The three Standard Webhooks headers every delivery carries. */
export const DELIVERY_HEADERS: Record<string, JsonObject> = {
	WebhookId: {
		name: 'webhook-id',
		in: 'header',
		required: true,
		description: "The event's `id`, the same on every attempt and resend: de-duplicate on it.",
		schema: { type: 'string', format: 'uuid' },
	},
	WebhookTimestamp: {
		name: 'webhook-timestamp',
		in: 'header',
		required: true,
		description: 'Unix seconds of this attempt. Refuse one more than 5 minutes off.',
		schema: { type: 'string', pattern: '^[0-9]+$' },
	},
	WebhookSignature: {
		name: 'webhook-signature',
		in: 'header',
		required: true,
		description:
			'`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the ' +
			'base64-decoded part of the secret after `whsec_`. Several signatures are separated by spaces; ' +
			'accept the delivery when one of them verifies.',
		schema: { type: 'string' },
	},
};

/** OpenAPI 3.1 `webhooks`: one entry per event type, the request the API sends an endpoint. */
export function webhooksSection(): Record<string, JsonObject> {
	const headers = Object.keys(DELIVERY_HEADERS).map((name) => ({
		$ref: `#/components/parameters/${name}`,
	}));
	return Object.fromEntries(
		EVENT_TYPES.map((type) => {
			const { title, description, causedBy } = EVENT_CATALOGUE[type];
			const name = eventSchemaName(type);
			const post = {
				operationId: `on${name}`,
				tags: ['Webhook events'],
				summary: title,
				description: `${description} Caused by: ${causedBy}`,
				security: [],
				parameters: headers,
				requestBody: {
					required: true,
					content: {
						'application/json': { schema: { $ref: `#/components/schemas/${name}Delivery` } },
					},
				},
				responses: {
					'200': {
						description:
							'Any 2xx: delivered. An endpoint that requires receipts counts only a 2xx carrying ' +
							`\`${RECEIPT_HEADER}\` with the delivery's \`webhook-id\`.`,
						headers: {
							[RECEIPT_HEADER]: {
								description:
									"The delivery's `webhook-id`: required when the endpoint requires receipts.",
								schema: { type: 'string' },
							},
						},
					},
					'410': { description: 'Gone: the API disables the endpoint and sends it nothing more.' },
					default: {
						description:
							'Anything else, or no answer within the timeout: the attempt failed and is retried on the schedule.',
					},
				},
			};
			return [type, { post }];
		}),
	);
}
