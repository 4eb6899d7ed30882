import { randomUUID } from 'node:crypto';
import { seedDemo } from '../../server/src/services/demo.ts';
import type { Actor } from '../../server/src/core/actor.ts';
import { ApiClient, demoVersionsOf } from '../../tooling/api/client.ts';
import { startTestServer, type TestServer } from './test-server.ts';

export interface TestOrg {
	id: string;
	slug: string;
	admin: ApiClient;
	trainer: ApiClient;
	adminUserId: string;
	trainerUserId: string;
	trainerEmail: string;
	labId: string;
	publishedVersionId: string;
	draftVersionId: string;
}

/**
 * An organization as `bootstrap --demo` makes it, plus an API key for one of its trainers.
 * Set up through the domain services (the same code the bootstrap command runs); tests then use HTTP only.
 */
export async function createOrg(
	server: TestServer,
	name = `Org ${randomUUID().slice(0, 8)}`,
): Promise<TestOrg> {
	const { services } = server;
	const domain = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.test`;
	const { org, admin, apiKey, actor } = services.orgs.create({
		name,
		admin: { email: `admin@${domain}`, name: 'Ada Admin' },
	});
	seedDemo(services, actor, domain);
	const adminClient = new ApiClient(server.url, apiKey.key);
	const members = (await adminClient.get(`/orgs/${org.id}/members`)).body as Array<{
		user_id: string;
		email: string;
	}>;
	const trainer = members.find((member) => member.email === `trainer1@${domain}`)!;
	const trainerActor: Actor = {
		orgId: org.id,
		userId: trainer.user_id,
		email: trainer.email,
		role: 'trainer',
	};
	const trainerKey = services.apiKeys.create(trainerActor, {
		name: 'trainer key',
		role: 'trainer',
	});
	const demo = await demoVersionsOf(adminClient);
	return {
		id: org.id,
		slug: org.slug,
		admin: adminClient,
		trainer: new ApiClient(server.url, trainerKey.key),
		adminUserId: admin.user_id,
		trainerUserId: trainer.user_id,
		trainerEmail: trainer.email,
		labId: demo.labId,
		publishedVersionId: demo.published,
		draftVersionId: demo.draft,
	};
}

export function sessionInput(org: TestOrg, overrides: Record<string, unknown> = {}) {
	return {
		title: 'Intro to Pods',
		lab_version_id: org.publishedVersionId,
		capacity: 10,
		...overrides,
	};
}

/** The usual start of a suite: the real server (with `env`) and one organization on it. */
export async function serverWithOrg(
	env: Record<string, string> = {},
	orgName?: string,
	options: Parameters<typeof startTestServer>[1] = {},
): Promise<{ server: TestServer; org: TestOrg }> {
	const server = await startTestServer(env, options);
	return { server, org: await createOrg(server, orgName) };
}

/** Adds `count` trainers to the organization and removes each, one after another; their user ids, in order. */
export async function removeTrainers(org: TestOrg, count: number): Promise<string[]> {
	const ids = [];
	for (let i = 0; i < count; i++) {
		const member = await org.admin.post(`/orgs/${org.id}/members`, {
			email: `leaver-${randomUUID()}@x.test`,
			name: `Leaver ${i}`,
			role: 'trainer',
		});
		await org.admin.delete(`/orgs/${org.id}/members/${member.body.user_id}`);
		ids.push(member.body.user_id as string);
	}
	return ids;
}
