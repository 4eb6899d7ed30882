import type { IDataObject } from 'n8n-workflow';
import type { components } from './api.generated';

/**
 * The API's request and response bodies, generated from the server's zod schemas through its
 * OpenAPI document (`npm run api-types`): a field the nodes send or read that a schema renames
 * fails their type check. Types only; nothing of them is in the built package.
 */
export type Schemas = components['schemas'];

/**
 * An object of the API as the JSON of an n8n item: the same fields, with what the schema leaves
 * open (`unknown`, such as an event's `data`) typed as any JSON value n8n holds.
 */
export type Json<Name extends keyof Schemas> = AsItemJson<Schemas[Name]>;

type AsItemJson<T> = unknown extends T
	? IDataObject[string]
	: T extends Array<infer Element>
		? Array<AsItemJson<Element>>
		: T extends object
			? { [Key in keyof T]: AsItemJson<T[Key]> }
			: T;

/** An event type of the activity log and of webhooks. */
export type EventType = Schemas['ActivityEvent']['type'];

/**
 * The body of a webhook delivery, whatever its event type: the OpenAPI document's `…Delivery`
 * schemas (`WebhookDelivery` is the deliveries list's item, not a body).
 */
export type DeliveryBody = Schemas[Exclude<
	Extract<keyof Schemas, `${string}Delivery`>,
	'WebhookDelivery'
>];
