import { randomUUID } from 'node:crypto';
import { ROUTES } from '../../server/src/routes/index.ts';
import type { AnyRoute } from '../../server/src/http/route.ts';
import { pathParamNames } from '../../server/src/http/router.ts';
import type { TestOrg } from './fixtures.ts';

export { ROUTES };
export type { AnyRoute };

/** Real ids of an organization's resources, one per path parameter name. */
export interface OrgResources {
	orgId: string;
	userId: string;
	keyId: string;
	webhookId: string;
	deliveryId: string;
	sessionId: string;
	labId: string;
	versionId: string;
	consumerId: string;
	batchId: string;
}

export async function resourcesOf(org: TestOrg): Promise<OrgResources> {
	const session = (
		await org.admin.post('/sessions', {
			title: 'Resource',
			lab_version_id: org.publishedVersionId,
			capacity: 5,
		})
	).body;
	const key = (
		await org.admin.post(`/orgs/${org.id}/api-keys`, {
			name: `resource ${randomUUID()}`,
			role: 'trainer',
		})
	).body;
	// One endpoint is enough to point ids at, and an organization may have at most 20.
	const [existing] = (await org.admin.get(`/orgs/${org.id}/webhooks?limit=1`)).body;
	const webhook =
		existing ??
		(
			await org.admin.post(`/orgs/${org.id}/webhooks`, {
				url: `https://93.184.215.14/${randomUUID()}`,
				event_types: ['org.closed'],
			})
		).body;
	// A test event: a delivery of the endpoint that changes nothing else in the organization.
	const delivery = (
		await org.admin.post(`/orgs/${org.id}/webhooks/${webhook.id}/test`, {
			event_type: 'org.closed',
		})
	).body;
	// An event consumer from the start of the log, with one open batch.
	const consumerId = randomUUID();
	await org.admin.post(`/orgs/${org.id}/event-consumers`, {
		id: consumerId,
		start: { after: '1970-01-01T00:00:00Z' },
	});
	const { batch } = (
		await org.admin.post(`/orgs/${org.id}/event-consumers/${consumerId}/batches`, {
			batch_id: randomUUID(),
			limit: 1,
		})
	).body;
	return {
		orgId: org.id,
		userId: org.trainerUserId,
		keyId: key.id,
		webhookId: webhook.id,
		deliveryId: delivery.id,
		sessionId: session.id,
		labId: org.labId,
		versionId: org.draftVersionId,
		consumerId,
		batchId: batch.id,
	};
}

export function pathFor(route: AnyRoute, ids: OrgResources): string {
	return route.path.replace(/\{(\w+)\}/g, (_all, name: keyof OrgResources) => ids[name]);
}

/** A body that passes validation, so that a refusal can only come from authorisation or scope. */
export function validBodyFor(route: AnyRoute, org: TestOrg): unknown {
	const bodies: Record<string, unknown> = {
		addMember: { email: `new-${Math.random()}@x.test`, name: 'New', role: 'trainer' },
		updateMemberRole: { role: 'trainer' },
		createSession: { title: 'T', lab_version_id: org.publishedVersionId, capacity: 5 },
		joinSession: { join_code: 'ABCDEFGH', email: 'j@x.test', name: 'J' },
		createLab: { name: `Lab ${Math.random()}`, tier: 'vm' },
		createApiKey: { name: `Key ${Math.random()}`, role: 'trainer' },
		createWebhook: { url: `https://93.184.215.14/${Math.random()}`, event_types: ['org.closed'] },
		updateWebhook: { description: `Changed ${Math.random()}` },
		sendWebhookTestEvent: { event_type: 'org.closed' },
		recoverWebhookDeliveries: { since: '2026-01-01T00:00:00Z' },
		rotateWebhookSecret: {},
		createEventConsumer: { id: randomUUID() },
		takeEventBatch: { batch_id: randomUUID() },
	};
	if (route.body && !(route.operationId in bodies))
		throw new Error(`No valid body for ${route.operationId}`);
	return bodies[route.operationId];
}

export const describeRoute = (route: AnyRoute) => `${route.method.toUpperCase()} ${route.path}`;
export const hasPathIds = (route: AnyRoute) => pathParamNames(route.path).length > 0;
