import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * Validates values against the schemas of an OpenAPI 3.1 document (JSON Schema 2020-12), as a
 * client generated from it would see them. `validate` returns the problems found, none when it fits.
 */
export function openApiContract(document: any) {
	const ajv = new Ajv2020({ strict: false, allErrors: true });
	addFormats(ajv);
	const base = 'https://traininglab.invalid/openapi.json';
	ajv.addSchema({ ...document, $id: base });
	return {
		validate(pointer: string, value: unknown): string[] {
			const check = ajv.getSchema(`${base}${pointer}`);
			if (!check) throw new Error(`no schema at ${pointer}`);
			if (check(value)) return [];
			return (check.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
		},
		/** A webhook delivery (its headers and JSON body) against `webhooks[type]`: the problems found. */
		validateDelivery(headers: Record<string, unknown>, body: { type: string }): string[] {
			const post = document.webhooks[body.type]?.post;
			if (!post) return [`no webhook for ${body.type}`];
			const problems = this.validate(
				post.requestBody.content['application/json'].schema.$ref,
				body,
			);
			for (const { $ref } of post.parameters as Array<{ $ref: string }>) {
				const parameter = document.components.parameters[$ref.split('/').at(-1)!];
				const value = headers[parameter.name];
				if (value === undefined) problems.push(`header ${parameter.name} missing`);
				else if (!ajv.validate(parameter.schema, value))
					problems.push(`header ${parameter.name}: ${ajv.errorsText()}`);
			}
			return problems;
		},
	};
}
