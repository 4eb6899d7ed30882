import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import type { Schemas } from '../../shared/api';
import { apiPath, apiRequestAllItems, fetchOrgId } from '../../shared/transport';
import { matches } from './matches';

const listMembers = apiRequestAllItems<Schemas['Member']>;

export async function searchMembers(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const members = await listMembers.call(
		this,
		apiPath`/orgs/${await fetchOrgId.call(this)}/members`,
	);
	return {
		results: members
			.filter((member) => matches(filter, member.name, member.email))
			.map((member) => ({
				name: `${member.name} <${member.email}> (${member.role})`,
				value: member.user_id,
			})),
	};
}
