import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { apiRequestAllItems } from '../../shared/transport';
import { matches } from './matches';

export async function searchLabs(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const labs = await apiRequestAllItems.call(this, '/labs');
	return {
		results: labs
			.filter((lab) => matches(filter, lab.name))
			.map((lab) => ({ name: `${lab.name} (${lab.tier})`, value: lab.id as string })),
	};
}
