import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import type { Schemas } from '../../shared/api';
import { apiRequestAs, nextCursor } from '../../shared/transport';
import { matches } from './matches';

const requestSessions = apiRequestAs<Array<Schemas['Session']>>;

/** One page of sessions per call; n8n asks for the next page (the API cursor) as the user scrolls. */
export async function searchSessions(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const { body, headers } = await requestSessions.call(this, 'GET', '/sessions', {
		qs: { limit: 200, ...(paginationToken ? { cursor: paginationToken } : {}) },
	});
	return {
		results: body
			.filter((session) => matches(filter, session.title))
			.map((session) => ({
				name: `${session.title} (${session.state}${session.starts_at ? `, ${session.starts_at.slice(0, 16).replace('T', ' ')}` : ''})`,
				value: session.id,
			})),
		paginationToken: nextCursor(headers.link),
	};
}
