import type { INodeProperties } from 'n8n-workflow';
import { choiceField } from './choices';

const UUID_REGEX = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

function locator(
	name: string,
	displayName: string,
	searchListMethod: string,
	description: string,
): INodeProperties {
	return {
		displayName,
		name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod, searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. 0b5c7a3e-6f0d-4f43-9a5e-2f1d8c4b7e21',
				validation: [
					{
						type: 'regex',
						properties: {
							regex: UUID_REGEX,
							errorMessage: `Not a valid ${displayName.toLowerCase()} ID`,
						},
					},
				],
			},
		],
	};
}

export const memberLocator = locator(
	'member',
	'Member',
	'searchMembers',
	'The member, by name or e-mail',
);
export const sessionLocator = locator(
	'session',
	'Session',
	'searchSessions',
	'The training session',
);
export const labLocator = locator('lab', 'Lab', 'searchLabs', 'The lab');
export const publishedLabVersionLocator = locator(
	'labVersion',
	'Lab Version',
	'searchPublishedLabVersions',
	'A published lab version to run the session on',
);
export const draftLabVersionLocator = locator(
	'labVersion',
	'Lab Version',
	'searchDraftLabVersions',
	'A draft version of the lab',
);

/** The e-mail and name of a person (a member to add, a participant to join). */
export const personFields: INodeProperties[] = [
	{
		displayName: 'Email',
		name: 'email',
		type: 'string',
		placeholder: 'name@email.com',
		default: '',
		required: true,
	},
	{ displayName: 'Name', name: 'name', type: 'string', default: '', required: true },
];

export const roleOptions = [
	{ name: 'Admin', value: 'admin' },
	{ name: 'Trainer', value: 'trainer' },
];

/** A Role field (admin or trainer); `forModel` is what a model reads of it where the node is an AI tool. */
export function roleField(description: string, forModel: string): INodeProperties[] {
	return choiceField(
		{
			displayName: 'Role',
			name: 'role',
			type: 'options',
			options: roleOptions,
			default: 'trainer',
			description,
		},
		{ key: 'role', description: forModel },
	);
}

export const tierOptions = [
	{ name: 'Cluster', value: 'cluster' },
	{ name: 'Container', value: 'container' },
	{ name: 'VM', value: 'vm' },
];

/**
 * Return All / Limit of every list operation. Where the node is an AI tool there is only a limit:
 * a whole list could flood the model's context.
 */
export function returnAllOrLimit(): INodeProperties[] {
	const limit: INodeProperties = {
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
	};
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
			displayOptions: { show: { '@tool': [false] } },
		},
		{ ...limit, displayOptions: { show: { '@tool': [false], returnAll: [false] } } },
		{ ...limit, default: 25, displayOptions: { show: { '@tool': [true] } } },
	];
}
