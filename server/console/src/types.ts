// The API's requests and responses as the console sends and reads them: generated from the server's
// zod schemas through its OpenAPI document (`npm run api-types`), so that a field renamed in a schema
// fails the console's type check. Type-only: nothing of this reaches the browser.
import type { components } from './api.generated';

type Schemas = components['schemas'];

export type Me = Schemas['Principal'];
export type Role = Me['role'];
export type Member = Schemas['Member'];
export type MemberCreate = Schemas['MemberCreate'];
export type MemberRoleUpdate = Schemas['MemberRoleUpdate'];
export type ActivityEvent = Schemas['ActivityEvent'];
export type Session = Schemas['Session'];
export type SessionDetail = Schemas['SessionDetail'];
export type SessionState = Session['state'];
export type SessionCreate = Schemas['SessionCreate'];
export type JoinCode = Schemas['JoinCode'];
export type Lab = Schemas['Lab'];
export type LabCreate = Schemas['LabCreate'];
export type LabVersion = Schemas['LabVersion'];
export type ApiKey = Schemas['ApiKey'];
export type ApiKeyCreate = Schemas['ApiKeyCreate'];
export type ApiKeyCreated = Schemas['ApiKeyCreated'];
export type Webhook = Schemas['Webhook'];
export type WebhookCreate = Schemas['WebhookCreate'];
export type EventType = WebhookCreate['event_types'][number];
export type WebhookCreated = Schemas['WebhookCreated'];
export type WebhookUpdate = Schemas['WebhookUpdate'];
export type WebhookTestRequest = Schemas['WebhookTestRequest'];
export type WebhookRecoverRequest = Schemas['WebhookRecoverRequest'];
export type WebhookRecovery = Schemas['WebhookRecovery'];
export type Delivery = Schemas['WebhookDelivery'];
export type DeliveryAttempt = Delivery['attempt_log'][number];
export type ErrorEnvelope = Schemas['Error'];
export type ErrorDetail = NonNullable<ErrorEnvelope['error']['details']>[number];
