import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import type { OperationExecute, OperationModule } from './types';

export interface Resource {
	/** The entry of the Resource selector. */
	option: INodePropertyOptions & { value: string };
	/** The Operation selector of the resource, then the fields of each operation. */
	properties: INodeProperties[];
	operations: ReadonlyMap<string, OperationExecute>;
	/** Each operation's action ("Create a session"), by operation value. */
	actions: Record<string, string>;
}

/**
 * A resource from its operation modules: the one list builds the Operation selector (sorted by
 * name, as n8n's style asks), the operations' fields and the dispatch, so they cannot disagree.
 */
export function defineResource(
	value: string,
	displayName: string,
	defaultOperation: string,
	modules: OperationModule[],
): Resource {
	const operations = new Map(modules.map((module) => [module.option.value, module.execute]));
	if (!operations.has(defaultOperation)) {
		throw new Error(`${value}: no operation "${defaultOperation}" to default to`);
	}
	const options = modules
		.map((module) => module.option)
		.sort((a, b) => a.name.localeCompare(b.name));
	return {
		option: { name: displayName, value },
		properties: [
			{
				displayName: 'Operation',
				name: 'operation',
				type: 'options',
				noDataExpression: true,
				displayOptions: { show: { resource: [value] } },
				options,
				default: defaultOperation,
			},
			...modules.flatMap((module) => module.description),
			...modules.flatMap((module) => toolProperties(value, module)),
		],
		operations,
		actions: Object.fromEntries(
			modules.map((module) => [module.option.value, module.option.action]),
		),
	};
}

/**
 * The tool node's Description (what the model reads; n8n adds no field of its own when a node has
 * `toolDescription`) and warning, for one operation; shown only where the node is an AI tool.
 */
function toolProperties(resource: string, module: OperationModule): INodeProperties[] {
	const displayOptions = {
		show: { '@tool': [true], resource: [resource], operation: [module.option.value] },
	};
	const properties: INodeProperties[] = [];
	if (module.toolWarning) {
		properties.push({
			displayName: module.toolWarning,
			name: 'toolWarning',
			type: 'notice',
			default: '',
			displayOptions,
		});
	}
	properties.push({ ...toolDescriptionField, default: module.toolDescription, displayOptions });
	return properties;
}

const toolDescriptionField: INodeProperties = {
	displayName: 'Tool Description',
	name: 'toolDescription',
	type: 'string',
	default: '',
	required: true,
	typeOptions: { rows: 4 },
	description:
		'What the AI model reads about this tool: what it does, which IDs it needs and where to get them, what cannot be undone',
};
