// Names for the API's shapes the views pass around: generated from the server's zod schemas through
// its OpenAPI document (`npm run api-types`), so that a field renamed in a schema fails the console's
// type check. Requests and answers are typed by path in api.ts. Type-only: nothing of this reaches
// the browser.
import type { components } from './api.generated';

type Schemas = components['schemas'];

export type Me = Schemas['Principal'];
export type Role = Me['role'];
export type Member = Schemas['Member'];
export type ActivityEvent = Schemas['ActivityEvent'];
export type EventTypeInfo = Schemas['EventTypeInfo'];
export type Session = Schemas['Session'];
export type SessionState = Session['state'];
export type Lab = Schemas['Lab'];
export type LabCreate = Schemas['LabCreate'];
export type LabVersion = Schemas['LabVersion'];
export type ApiKey = Schemas['ApiKey'];
export type Webhook = Schemas['Webhook'];
export type EventType = Schemas['EventTypeInfo']['type'];
export type Delivery = Schemas['WebhookDelivery'];
export type WebhookHealth = Schemas['WebhookHealth'];
export type HealthWindow = WebhookHealth['last_hour'];
export type DeliveryAttempt = Delivery['attempt_log'][number];
export type DeliveryDetail = Schemas['WebhookDeliveryDetail'];
export type AttemptResponse = NonNullable<DeliveryDetail['attempt_log'][number]['response']>;
export type ErrorEnvelope = Schemas['Error'];
export type ErrorDetail = NonNullable<ErrorEnvelope['error']['details']>[number];
