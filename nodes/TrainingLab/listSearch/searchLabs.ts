import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { apiRequestAllItems } from '../../shared/transport';
import { matches } from './matches';
import type { Schemas } from '../../shared/api';

const listLabs = apiRequestAllItems<Schemas['Lab']>;

export async function searchLabs(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const labs = await listLabs.call(this, '/labs');
	return {
		results: labs
			.filter((lab) => matches(filter, lab.name))
			.map((lab) => ({ name: `${lab.name} (${lab.tier})`, value: lab.id })),
	};
}
