import { Credentials } from 'n8n-core';
import {
	ICredentialsHelper,
	type ICredentialDataDecryptedObject,
	type ICredentialType,
	type IHttpRequestOptions,
	type INode,
	type INodeProperties,
	type IRequestOptionsSimplified,
	type Workflow,
} from 'n8n-workflow';

/**
 * Stands in for n8n's database-backed credential store: credentials are given in memory, and a
 * credential type's generic `authenticate` is applied the way n8n applies it, by resolving its
 * `={{ $credentials.… }}` expressions with the workflow's own expression engine.
 */
export class InMemoryCredentialsHelper extends ICredentialsHelper {
	readonly #types: Map<string, ICredentialType>;
	#data: Record<string, ICredentialDataDecryptedObject> = {};

	constructor(types: ICredentialType[]) {
		super();
		this.#types = new Map(types.map((type) => [type.name, type]));
	}

	setCredentials(data: Record<string, ICredentialDataDecryptedObject>): void {
		this.#data = data;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.#type(typeName);
		if (typeof authenticate === 'function')
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		if (authenticate?.type === 'generic' && workflow && node) {
			const resolve = (value: string) =>
				String(
					workflow.expression.getSimpleParameterValue(
						node,
						value,
						'internal',
						{ $credentials: credentials },
						undefined,
						'',
					) ?? '',
				);
			for (const [target, entries] of Object.entries(authenticate.properties)) {
				const options = requestOptions as unknown as Record<string, Record<string, string>>;
				options[target] ??= {};
				for (const [key, value] of Object.entries(entries as Record<string, string>))
					options[target][resolve(key)] = resolve(value);
			}
		}
		return requestOptions as IHttpRequestOptions;
	}

	async getDecrypted(
		_additionalData: unknown,
		_nodeCredentials: unknown,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const data = this.#data[type];
		if (!data) throw new Error(`No credentials of type ${type} were given to the test`);
		return data;
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.#type(type).properties;
	}

	async getCredentials(nodeCredentials: { id: string | null; name: string }, type: string) {
		return new Credentials(nodeCredentials, type, '');
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async preAuthentication() {
		return undefined;
	}

	async runPreAuthentication() {
		return undefined;
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	#type(name: string): ICredentialType {
		const type = this.#types.get(name);
		if (!type) throw new Error(`Unknown credential type ${name}`);
		return type;
	}
}
