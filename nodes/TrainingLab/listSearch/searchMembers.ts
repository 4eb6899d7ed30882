import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { apiRequest, apiRequestAllItems } from '../../shared/transport';
import { matches } from './matches';

export async function searchMembers(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const me = (await apiRequest.call(this, 'GET', '/me')).body as { org: { id: string } };
	const members = await apiRequestAllItems.call(this, `/orgs/${me.org.id}/members`);
	return {
		results: members
			.filter((member) => matches(filter, member.name, member.email))
			.map((member: IDataObject) => ({
				name: `${member.name} <${member.email}> (${member.role})`,
				value: member.user_id as string,
			})),
	};
}
