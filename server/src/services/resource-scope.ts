import type { Repositories } from '../repositories/index.ts';

type Params = Record<string, string>;
type Exists = (repos: Repositories, orgId: string, params: Params) => boolean;

/**
 * How to tell that each kind of path id names a resource of the caller's organization. A caller
 * whose role is too low learns nothing about ids outside their organization: they get 404 for
 * those, and 403 only for resources they could see. Every path parameter must be listed here
 * (checked when routes are mounted), so a new endpoint cannot skip the check.
 */
const EXISTS_IN_ORG: Record<string, Exists> = {
	orgId: (_repos, orgId, params) => params.orgId === orgId,
	userId: (repos, orgId, params) => repos.users.findActive(orgId, params.userId) !== undefined,
	keyId: (repos, orgId, params) => repos.apiKeys.find(orgId, params.keyId) !== undefined,
	webhookId: (repos, orgId, params) => repos.webhooks.find(orgId, params.webhookId) !== undefined,
	deliveryId: (repos, orgId, params) => {
		const webhook = repos.webhooks.find(orgId, params.webhookId);
		return (
			webhook !== undefined &&
			repos.outbox.attempts.find(webhook.id, params.deliveryId) !== undefined
		);
	},
	sessionId: (repos, orgId, params) => repos.sessions.find(orgId, params.sessionId) !== undefined,
	labId: (repos, orgId, params) => repos.labs.find(orgId, params.labId) !== undefined,
	// A consumer's id is chosen by its reader; a batch is named within its consumer, and answers
	// for its consumer (one that is done already is no longer stored).
	consumerId: (repos, orgId, params) =>
		repos.eventConsumers.find(orgId, params.consumerId) !== undefined,
	batchId: (repos, orgId, params) =>
		repos.eventConsumers.find(orgId, params.consumerId) !== undefined,
	versionId: (repos, orgId, params) =>
		repos.labVersions.find(orgId, params.versionId)?.lab_id === params.labId,
};

export function assertScopable(paramNames: string[], where: string): void {
	const unknown = paramNames.filter((name) => !(name in EXISTS_IN_ORG));
	if (unknown.length > 0)
		throw new Error(
			`${where}: no organization scope check for path parameter(s) ${unknown.join(', ')}`,
		);
}

/** Whether every id of a path names a resource of the organization (for answering 404 rather than 403). */
export class ResourceScope {
	readonly #repos: Repositories;

	constructor(repos: Repositories) {
		this.#repos = repos;
	}

	allExistInOrg(orgId: string, params: Params): boolean {
		return Object.keys(params).every((name) => EXISTS_IN_ORG[name](this.#repos, orgId, params));
	}
}
