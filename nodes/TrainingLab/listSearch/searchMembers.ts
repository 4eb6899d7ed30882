import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { apiPath, apiRequestAllItems, fetchOrgId } from '../../shared/transport';
import { matches } from './matches';

export async function searchMembers(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const members = await apiRequestAllItems.call(
		this,
		apiPath`/orgs/${await fetchOrgId.call(this)}/members`,
	);
	return {
		results: members
			.filter((member) => matches(filter, member.name, member.email))
			.map((member: IDataObject) => ({
				name: `${member.name} <${member.email}> (${member.role})`,
				value: member.user_id as string,
			})),
	};
}
