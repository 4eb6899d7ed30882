import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

/**
 * An options (or multi-options) field and its twin for the tool node. n8n's editor offers "let the
 * model define this parameter" for no options field, so where the node is an AI tool the field is
 * text that the model fills by default, through a `$fromAI()` whose description names the allowed
 * values (they reach the model in the tool's schema); a fixed value can be typed instead.
 */
export function choiceField(
	property: INodeProperties,
	fromAi: { key: string; description: string },
): INodeProperties[] {
	const values = (property.options ?? []).map((option) => ('value' in option ? option.value : ''));
	const multiple = property.type === 'multiOptions';
	const allowed = multiple
		? `A comma-separated list of one or more of: ${values.join(', ')}.`
		: `One of: ${values.join(', ')}.`;
	const modelText: INodeProperties = { ...property, type: 'string' };
	delete modelText.options;
	return [
		{ ...property, displayOptions: { show: { '@tool': [false] } } },
		{
			...modelText,
			default: `={{ $fromAI('${fromAi.key}', '${fromAi.description} ${allowed}', 'string') }}`,
			description: [property.description?.replace(/\.$/, ''), allowed].filter(Boolean).join('. '),
			displayOptions: { show: { '@tool': [true] } },
		},
	];
}

/** The values of a field made by `choiceField`: the options picked, or the text a model gave, tidied. */
export function choiceValues(this: IExecuteFunctions, name: string, itemIndex: number): string[] {
	const value = this.getNodeParameter(name, itemIndex) as string | string[];
	const values = Array.isArray(value) ? value : String(value).split(/[\s,]+/);
	return values.map((entry) => String(entry).trim().toLowerCase()).filter(Boolean);
}

/** The one value of a single-choice field made by `choiceField`. */
export function choiceValue(this: IExecuteFunctions, name: string, itemIndex: number): string {
	return choiceValues.call(this, name, itemIndex).join(' ');
}
