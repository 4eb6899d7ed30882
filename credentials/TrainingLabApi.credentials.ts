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
			description: 'An API key of your organisation (Administration → API keys)',
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
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message: 'No Training Lab API at this Base URL: it must end with /api/v1',
				},
			},
		],
	};
}
