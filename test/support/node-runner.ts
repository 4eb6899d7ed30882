import type { INodeParameters } from 'n8n-workflow';
import type { TestOrg } from './fixtures';
import type { TestServer } from './test-server';
import { runTrainingLab, type NodeRun, type RunOptions } from './n8n';

/** A resource-locator value given by ID, as a user picks "By ID" in the editor. */
export const byId = (value: string) => ({ __rl: true, mode: 'id', value });
/** A resource-locator value picked from the list. */
export const fromList = (value: string) => ({ __rl: true, mode: 'list', value });

/** The node's parameters for Session → Create on the lab version `versionId`, capacity 5. */
export const createSessionParameters = (
	versionId: string,
	title: string,
	extra: Record<string, unknown> = {},
): INodeParameters => ({
	resource: 'session',
	operation: 'create',
	title,
	labVersion: byId(versionId),
	capacity: 5,
	additionalFields: {},
	...(extra as INodeParameters),
});

/** Runs the node with the admin (or given) key of the organization and fails the test on an execution error. */
export function nodeRunner(server: () => TestServer, org: () => TestOrg) {
	return async (
		parameters: INodeParameters,
		options: Partial<RunOptions> & { key?: string } = {},
	): Promise<NodeRun> => {
		const run = await runTrainingLab(parameters, {
			credentials: { baseUrl: server().url, apiKey: options.key ?? org().admin.key! },
			...options,
		});
		if (run.error) throw run.error;
		return run;
	};
}

export const json = (run: NodeRun): Array<Record<string, any>> =>
	run.items.map((item) => item.json);
