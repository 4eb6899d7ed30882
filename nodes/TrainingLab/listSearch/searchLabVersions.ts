import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import type { Schemas } from '../../shared/api';
import { apiPath, apiRequestAllItems } from '../../shared/transport';
import { matches } from './matches';

const listLabs = apiRequestAllItems<Schemas['Lab']>;
const listVersions = apiRequestAllItems<Schemas['LabVersion']>;

/** Published versions of every lab, shown with the lab's name: what a session can be created on. */
export async function searchPublishedLabVersions(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const labs = await listLabs.call(this, '/labs');
	const results: INodeListSearchResult['results'] = [];
	for (const lab of labs) {
		const versions = await listVersions.call(this, apiPath`/labs/${lab.id}/versions`);
		for (const version of versions.filter((v) => v.status === 'published')) {
			const name = `${lab.name} — v${version.version}`;
			if (matches(filter, name)) results.push({ name, value: version.id });
		}
	}
	return { results };
}

/** Draft versions of the lab chosen in the node's Lab parameter: what can be published. */
export async function searchDraftLabVersions(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const lab = this.getCurrentNodeParameter('lab') as { value?: string } | string | undefined;
	const labId = typeof lab === 'object' ? lab?.value : lab;
	if (!labId) return { results: [] };
	const versions = await listVersions.call(this, apiPath`/labs/${labId}/versions`);
	return {
		results: versions
			.filter((version) => version.status === 'draft' && matches(filter, `v${version.version}`))
			.map((version) => ({ name: `v${version.version} (draft)`, value: version.id })),
	};
}
