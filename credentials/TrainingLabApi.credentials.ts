import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

export class TrainingLabApi implements ICredentialType {
	name = 'trainingLabApi';

	displayName = 'Training Lab API';

	icon: Icon = {
		light: 'file:../icons/trainingLab.svg',
		dark: 'file:../icons/trainingLab.dark.svg',
	};

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-traininglab#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'http://localhost:3000/api/v1',
			placeholder: 'https://lab.example.com/api/v1',
			description: 'Address of the Training Lab API, including the version segment /api/v1',
			required: true,
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			placeholder: 'tlk_…',
			description:
				"An API key of your organization, shown once when it was created (by the Training Lab node's API Key → Create, or the server's bootstrap command)",
			required: true,
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.apiKey}}',
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/me',
			method: 'GET',
			// Every answer's body comes back and the rules below read it: n8n 1.x applies "responseCode"
			// rules only to errors it does not reword (a 401 becomes its own "Authorization failed"), so
			// the API's error code is matched in the body instead, which n8n 1.x and 2.x read alike.
			ignoreHttpStatusErrors: true,
		},
		// What n8n shows when the test fails. A host that cannot be reached shows as n8n's own
		// connection error (2.x: its code, ECONNREFUSED; 1.x: a sentence): a declarative test cannot word it.
		rules: [
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'error.code',
					value: 'unauthorized',
					message:
						'The API key was refused: it is wrong, revoked, or its member was removed. Create a new key (Training Lab node → API Key → Create) and paste it here.',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'error.code',
					value: 'not_found',
					message:
						'Nothing answers as the Training Lab API at this Base URL (GET /me: 404). Check host and path: the Base URL is the API address ending in /api/v1, e.g. https://lab.example.com/api/v1.',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'error.code',
					value: 'rate_limited',
					message:
						'The Training Lab API is rate limiting this organization (429). Test the credential again in a minute.',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'org.id',
					value: undefined,
					message:
						'This server answered GET /me, but not as the Training Lab API does (no organization in the answer). Check the Base URL.',
				},
			},
		],
	};
}
