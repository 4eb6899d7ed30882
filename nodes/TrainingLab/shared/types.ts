import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

export interface ExecutionContext {
	/** The organization of the credential's key, from `GET /me`, fetched once per execution of the node. */
	orgId(itemIndex: number): Promise<string>;
}

/** One operation's behaviour: the API result for one input item (an array becomes several items). */
export type OperationExecute = (
	this: IExecuteFunctions,
	itemIndex: number,
	context: ExecutionContext,
) => Promise<IDataObject | IDataObject[]>;

/** How an operation appears in the Operation selector. */
export interface OperationOption {
	name: string;
	value: string;
	action: string;
	description: string;
}

/** What every `resources/<resource>/<operation>.ts` exports. */
export interface OperationModule {
	option: OperationOption;
	description: INodeProperties[];
	execute: OperationExecute;
	/** What a model reads of the operation when the node is an AI tool: what it does, the ids it needs and where they come from, the state it requires, what cannot be undone. */
	toolDescription: string;
	/** Shown on the tool node in the editor: why to think before handing this operation to a model. */
	toolWarning?: string;
}
